// A game session: the board, whose turn, the status line, the seats'
// players and their ratings, the clocks, moves sent with the seat's token,
// the other side's moves arriving live from the game's event stream, the move
// list to step through, and the result, with the rating changes of a rated
// game and a rematch, at the end.

import * as api from './api.js';
import { Board, describeMove, describeResult, resultShort, shortMove, replyPause, REASONS, pitLabel, pitName, plural, sideName, other } from './board.js';
import { ExplorerPanel } from './explorer.js';
import { mistakePlies, plyWords, scoreGraph, stepMistake } from './review.js';
import * as saved from './store.js';
import { serialQueue } from './queue.js';
import { ratingText, signed } from './ratings.js';

/** The marks a reviewed move gets after it in the move list, by class. */
const REVIEW_MARKS = { inaccuracy: '?!', mistake: '?', blunder: '??' };

/** Whether a game is over: finished with a result, or aborted with none. */
export const isOver = (g) => g.status === 'finished' || g.status === 'aborted';

export class GameView {
  constructor(root, id, app) {
    this.root = root;
    this.id = id;
    this.app = app;
    this.enqueue = serialQueue(root, (err) => this.fail(err));
    this.busy = false;
    this.closed = false;
    this.stopEvents = null;
    this.pollTimer = null;
    this.ticker = null;
    this.overdueAsked = 0;
    this.resignArmed = false;
    this.viewPly = null; // the position shown while stepping through the moves (plies played), null: the game now
    // Moves tried on the board after the game, from the position shown:
    // {base: plies of the game the line starts after, line: [{move, mover}], positions: [the base's, then after each]}.
    this.analysis = null;
    this.$ = (sel) => root.querySelector(sel);
    this.board = new Board(this.$('.board-host'), { onPlay: (pit) => (this.analysis ? this.analyse(pit) : this.play(pit)), label: 'Ayoayo board', pageSteps: true });
    this.explorer = new ExplorerPanel(this.$('.explorer'), { onPlay: (pit) => this.analyse(pit) });
    this.$('.analyse').addEventListener('click', () => this.analyse(null));
    this.$('.prev-mistake').addEventListener('click', () => this.stepMistake('prev'));
    this.$('.next-mistake').addEventListener('click', () => this.stepMistake('next'));
    this.$('.graph-host').addEventListener('click', (ev) => {
      const dot = ev.target.closest('[data-ply]');
      if (dot) this.stepTo(Number(dot.dataset.ply) - 1);
    });
    this.board.speed = saved.speed();
    // The bottom side's clock and player sit right under the board, above its caption.
    this.board.root.after(this.$('.clock-bottom'), this.$('.seat-bottom'));
    this.$('.skip').addEventListener('click', () => this.skip());
    this.$('.resign').addEventListener('click', () => this.resign());
    this.$('.copy').addEventListener('click', () => this.copyLink());
    this.$('.rematch').addEventListener('click', () => this.rematch());
    this.$('.review').addEventListener('click', () => this.startReview());
    this.$('.offer-draw').addEventListener('click', () => this.answer('draw', true));
    this.$('.ask-takeback').addEventListener('click', () => this.answer('takeback', true));
    this.$('.berserk').addEventListener('click', () => this.goBerserk());
    this.$('.offers').addEventListener('click', (ev) => {
      const b = ev.target.closest('button[data-offer]');
      if (b) this.answer(b.dataset.offer, b.dataset.answer === 'yes');
    });
    this.$('.same-settings').addEventListener('click', () => this.app.prefill(this.settings()));
    this.$('.history').addEventListener('click', (ev) => {
      const b = ev.target.closest('button[data-ply]');
      if (b) this.stepTo(Number(b.dataset.ply) + 1);
    });
    for (const b of root.querySelectorAll('.steps button')) {
      b.addEventListener('click', () => this.step(b.dataset.step));
    }
  }

  async start(notice) {
    this.local = saved.savedGame(this.id) || { tokens: {}, mode: 'watch' };
    this.tokens = this.local.tokens || {};
    const seats = Object.keys(this.tokens);
    this.board.setPerspective(seats.length === 1 ? seats[0] : 'south');
    const g = await api.getGame(this.id);
    this.game = g;
    this.clock = g.clock;
    let moves = [];
    try {
      moves = await api.gameMoves(this.id, 0);
    } catch {
      // The list is a convenience; the board does not depend on it.
    }
    // Moves this browser has not shown yet are played on the board as if they
    // arrived now: the AI's opening move when you take North, or a reply that
    // came while the page was closed. Only the last two: a long absence is not
    // replayed move by move.
    const complete = moves.length === g.ply;
    const from = complete ? Math.max(this.seenPly(g), g.ply - 2, 0) : g.ply;
    this.history = complete ? moves.slice(0, from) : moves;
    this.drawHistory();
    // A notice from the way here (the link's seats were taken, the seat is
    // already yours) stays on the page instead of being replaced by the turn.
    const line = this.$('.notice');
    line.hidden = !notice;
    line.textContent = notice || '';
    this.drawClocks();
    this.drawPlayers();
    this.loadTournament();
    await this.enqueue(async () => {
      if (from < g.ply) {
        let pos = from === 0 ? g.start : moves[from - 1].position;
        this.board.render(pos, { interactive: false });
        const shown = this.history[from - 1];
        this.board.markLast(shown || null, shown?.side, this.history[from - 2] ? { move: this.history[from - 2], mover: this.history[from - 2].side } : null);
        this.drawFacts(stateAfter(shown, g));
        this.$('.skip').hidden = false;
        for (const m of moves.slice(from)) {
          await this.showMove(pos, m, m.side);
          pos = m.position;
        }
        this.$('.skip').hidden = true;
      }
      await this.show();
    });
    this.follow();
  }

  /**
   * The ply this browser last showed of the game: from its summary, else 0
   * for a seat just taken here (nothing shown yet), else the game's own ply
   * (someone watching is shown the game as it stands).
   */
  seenPly(g) {
    if (this.local.summary && Number.isInteger(this.local.summary.ply)) return this.local.summary.ply;
    return Object.keys(this.tokens).length ? 0 : g.ply;
  }

  /**
   * Rings the game's last move and the other side's move before it: from
   * the history, else the last from the game's brief lastMove.
   */
  markLast() {
    const h = this.history;
    const m = h[h.length - 1];
    const brief = this.game.lastMove;
    const before = h[h.length - 2];
    if (m && (!brief || m.ply === brief.ply)) this.board.markLast(m, m.side, before ? { move: before, mover: before.side } : null);
    else if (brief) this.board.markLast({ pit: brief.pit, legs: [] }, brief.side);
    else this.board.markLast(null);
  }

  /** Stops everything this view started: the event stream, timers, animations. */
  close() {
    this.closed = true;
    this.stopFollowing();
    if (this.stopPlayer) this.stopPlayer();
    this.stopPlayer = null;
    clearInterval(this.ticker);
    this.ticker = null;
    this.explorer.close();
    this.board.skip();
  }

  /** Asks the server for news once, however many events arrived meanwhile. */
  scheduleCatchUp() {
    if (this.catchUpQueued) return;
    this.catchUpQueued = true;
    this.enqueue(() => {
      this.catchUpQueued = false;
      return this.catchUp();
    });
  }

  follow() {
    if (isOver(this.game)) return;
    this.stopEvents = api.followGame(
      this.id,
      () => this.scheduleCatchUp(),
      (ev) => {
        // The browser retries a dropped stream by itself; one that was refused
        // is closed for good, so fall back to asking now and then.
        if (ev.target.readyState === EventSource.CLOSED && !this.pollTimer && !this.closed) {
          this.pollTimer = setInterval(() => this.scheduleCatchUp(), 4000);
        }
      },
    );
  }

  /** A game that is over changes no more: stop listening. */
  stopFollowing() {
    if (this.stopEvents) this.stopEvents();
    this.stopEvents = null;
    clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  /** The side whose turn it is, if this browser holds its seat and may move now. */
  myTurn() {
    const g = this.game;
    if (g.status !== 'active') return null;
    const side = g.position.toMove;
    if (!this.tokens[side]) return null;
    if (g.ai && g.ai.side === side) return null;
    return side;
  }

  async show() {
    if (this.closed) return;
    const g = this.game;
    const mover = this.myTurn();
    this.viewPly = null;
    this.analysis = null;
    this.board.settle();
    this.board.render(g.position, { interactive: false, result: g.result, ended: isOver(g) });
    this.markLast();
    if (mover) {
      try {
        const moves = await api.legalMoves(g.position, g.rules);
        if (this.closed || this.game !== g || this.viewPly !== null) return;
        this.board.render(g.position, { legal: moves.filter((m) => m.legal).map((m) => m.pit), interactive: true });
      } catch (err) {
        this.fail(err);
      }
    }
    this.drawFacts(stateOf(g));
    this.setStatus(this.statusText());
    const me = Object.keys(this.tokens);
    // Someone watching is told so for as long as they watch, not once.
    this.$('.seat-badge').hidden = me.length > 0;
    this.$('.resign').hidden = !(g.status === 'active' && me.length > 0 && (mover || me.length === 1));
    const share = this.$('.share');
    share.hidden = !(g.status === 'waiting' && me.length === 1);
    if (!share.hidden) this.$('#share-link').value = shareLink(this.id);
    this.clock = this.clockOf(g);
    this.drawClocks();
    this.drawPlayers();
    this.drawResult();
    this.drawOffers();
    this.drawBerserk();
    this.drawHistory();
    this.drawReviewed();
    saved.setGameSummary(this.id, { status: g.status, ply: g.ply, title: this.titleText() });
    if (isOver(g)) {
      this.stopFollowing();
      this.followPlayer();
    }
  }

  titleText() {
    const g = this.game;
    const me = Object.keys(this.tokens);
    if (g.ai) {
      const human = other(g.ai.side);
      return me.includes(human) ? `You (${sideName(human)}) against the AI, level ${g.ai.level}` : `${sideName(human)} against the AI, level ${g.ai.level}`;
    }
    if (me.length === 2) return 'South and North at one screen';
    const names = g.players || {};
    if (me.length === 1) return `You (${sideName(me[0])}) against ${names[other(me[0])]?.name || 'a friend'}`;
    if (names.south?.name && names.north?.name) return `${names.south.name} (South) against ${names.north.name} (North)`;
    return 'South against North';
  }

  statusText() {
    const g = this.game;
    const me = Object.keys(this.tokens);
    if (g.status === 'finished') return `Game over. ${describeResult(g.result, g.position)}`;
    if (g.status === 'aborted') return `Game aborted. ${this.abortText()}`;
    if (g.status === 'waiting') return me.length ? 'Waiting for your friend to open the link…' : 'Waiting for the second player…';
    const side = g.position.toMove;
    if (g.ai && g.ai.side === side) return 'The AI is thinking…';
    if (this.myTurn()) {
      return me.length === 2 ? `${sideName(side)} to move: choose a highlighted pit.` : `Your move (${sideName(side)}): choose a highlighted pit.`;
    }
    return me.length ? `Waiting for ${sideName(side)}'s move…` : `${sideName(side)} to move.`;
  }

  /** Why an aborted game was: nobody joined, or a side never made its first move. */
  abortText() {
    const g = this.game;
    if (g.ply === 0 && (g.seats?.south === 'open' || g.seats?.north === 'open')) return 'Nobody joined in time; it counts for nobody.';
    return `${sideName(g.position.toMove)} did not make a first move in time; it counts for nobody.`;
  }

  /**
   * The line under the board and the tab's title, for state (see stateOf):
   * drawn after each move's animation, so that both say what the board shows.
   */
  drawFacts(state) {
    const g = this.game;
    this.$('.game-title').textContent = this.titleText();
    const facts = this.$('.facts');
    const statusWords = { waiting: 'waiting for a player', active: 'in play', finished: 'finished', aborted: 'aborted' };
    facts.querySelector('[data-fact="ply"]').textContent = String(state.ply);
    const st = facts.querySelector('[data-fact="status"]');
    st.textContent = statusWords[state.status] || state.status;
    st.dataset.value = state.status;
    const turn = facts.querySelector('[data-fact="turn"]');
    const over = state.status === 'finished' || state.status === 'aborted';
    turn.textContent = state.status === 'finished' ? resultShort(state.result) : over ? 'no result' : `${sideName(state.toMove)} to move`;
    turn.dataset.value = over ? '' : state.toMove;
    const time = facts.querySelector('[data-fact="time"]');
    time.textContent = timeControlName(g.timeControl);
    facts.querySelector('[data-fact="rated"]').textContent = g.rated ? ' · rated' : '';
    document.title = `${this.tabText(state)} · Ayoayo`;
  }

  /** The tab's title: "Your move" when this browser is to move. */
  tabText(state) {
    const g = this.game;
    if (state.status === 'finished' || state.status === 'aborted') return 'Game over';
    if (state.status === 'waiting') return 'Waiting for a player';
    const side = state.toMove;
    if (g.ai && g.ai.side === side) return "The AI's move";
    if (this.tokens[side]) return Object.keys(this.tokens).length === 2 ? `${sideName(side)}'s move` : 'Your move';
    return `${sideName(side)}'s move`;
  }

  setStatus(text, isError = false) {
    const s = this.$('.status');
    s.textContent = text;
    s.classList.toggle('problem', isError);
  }

  fail(err) {
    if (this.closed) return;
    this.busy = false;
    this.$('.skip').hidden = true;
    this.setStatus(err instanceof api.ApiError ? err.detail : String(err), true);
  }

  play(pit) {
    const side = this.myTurn();
    if (this.busy || !side || this.viewPly !== null) return;
    this.busy = true;
    this.enqueue(async () => {
      const before = this.game;
      this.board.render(before.position, { interactive: false });
      this.setStatus(`${sideName(side)} sows pit ${pitLabel(pit)}…`);
      let res;
      try {
        res = await api.playMove(this.id, this.tokens[side], pit, before.ply);
      } catch (err) {
        this.busy = false;
        if (err instanceof api.ApiError && err.status === 409) {
          // Someone else moved first or the game ended: show what happened.
          await this.catchUp();
          this.setStatus(err.detail, true);
          return;
        }
        await this.show();
        throw err;
      }
      // The clocks as the server has them now, while the moves are shown.
      this.clock = res.game.clock;
      this.drawClocks();
      this.$('.skip').hidden = false;
      await this.showMove(before.position, res.move, side);
      if (res.reply) {
        if (!this.instant(res.reply)) await this.board.sleep(replyPause(this.board.speed));
        await this.showMove(res.move.position, res.reply, other(side));
      }
      this.$('.skip').hidden = true;
      this.game = res.game;
      this.busy = false;
      await this.show();
      if (this.myTurn()) this.board.focus();
    });
  }

  async showMove(before, move, mover) {
    if (this.closed) return;
    if (this.history.some((m) => m.ply === move.ply)) {
      // Already shown (a retried answer, or the stream was faster).
      this.board.render(move.position, { result: move.result });
      return;
    }
    this.setStatus(move.byAi ? `The AI (${sideName(mover)}) sows pit ${pitLabel(move.pit)}…` : `${sideName(mover)} sows pit ${pitLabel(move.pit)}…`);
    await this.board.animate(before, move, { instant: this.instant(move) });
    this.history.push({ ...move, side: move.side || mover });
    this.drawHistory();
    this.drawFacts(stateAfter(move, this.game));
    this.app.announce(describeMove(move, mover));
  }

  /**
   * Whether move is shown at once instead of animated: in a game with a
   * time control where this browser holds a seat, unless the move ends the
   * game. The server starts the next side's time when it stores a move, not
   * when the page has shown it, so an animation there (and the pause before
   * the AI's reply) would be spent from a player's clock: a few seconds of
   * every move at normal speed. A player's time is never spent on the
   * page's animations; someone watching, and an untimed game, still see
   * every seed sown.
   */
  instant(move) {
    return !!this.game.timeControl && Object.keys(this.tokens).length > 0 && !move.result;
  }

  /** Brings the page up to the server's game: animates moves not yet shown, then shows the game. */
  async catchUp() {
    if (this.closed || this.busy) return;
    const fresh = await api.getGame(this.id);
    if (fresh.ply < this.game.ply) {
      // Moves were taken back: they leave the list, and the board is the game's again.
      this.history = this.history.filter((m) => m.ply < fresh.ply);
      this.viewPly = null;
      this.app.announce(`Moves taken back: ply ${fresh.ply}.`);
    }
    if (fresh.ply > this.game.ply) {
      const moves = await api.gameMoves(this.id, this.game.ply);
      let pos = this.game.position;
      this.leavePast();
      this.clock = this.clockOf(fresh);
      this.drawClocks();
      this.$('.skip').hidden = false;
      let first = true;
      for (const m of moves) {
        if (m.ply < this.game.ply || this.history.some((h) => h.ply === m.ply)) continue;
        // The AI's reply to a move seen just now waits a moment, as after one's own.
        if (!first && m.byAi && !this.instant(m)) await this.board.sleep(replyPause(this.board.speed));
        first = false;
        await this.showMove(pos, m, m.side || pos.toMove);
        pos = m.position;
      }
      this.$('.skip').hidden = true;
    }
    this.game = fresh;
    await this.show();
  }

  /** The board back at the game now, from a position stepped back to, before a move is played on it. */
  leavePast() {
    if (this.viewPly === null) return;
    this.viewPly = null;
    this.analysis = null;
    const g = this.game;
    this.board.render(g.position, { result: g.result, ended: isOver(g) });
    this.markLast();
    this.drawHistory();
  }

  // ---- The move list, and stepping through it ----

  /**
   * The move list, a line for each pair of moves, each move a button that
   * shows the position after it; then how the game ended when that was not
   * a move (a resignation, a timeout, an abort).
   */
  drawHistory() {
    const ol = this.$('.history');
    const rows = [];
    const first = this.game.start?.toMove || 'south';
    const current = this.viewPly === null ? this.history.length : this.viewPly;
    let row = null;
    this.history.forEach((m, i) => {
      if (!row || m.side === first) {
        row = document.createElement('li');
        rows.push(row);
        row.append(Object.assign(cell(`${rows.length}.`), { className: 'n' }));
        // A list that begins with the second side's move keeps the columns.
        if (m.side !== first) row.append(cell());
      }
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.ply = String(m.ply);
      b.dataset.side = m.side;
      b.textContent = shortMove(m);
      let words = describeMove(m, m.side);
      const r = this.review?.plies?.[m.ply];
      if (r) {
        // The engine's verdict: a mark after the move, and why in its title.
        b.dataset.class = r.class;
        b.textContent += REVIEW_MARKS[r.class] || '';
        words += ` (${r.class}${r.loss ? `, ${r.loss} seed${r.loss === 1 ? '' : 's'} lost; best ${r.best.map((p) => pitLabel(p)).join(' or ')}` : ''}${r.mark ? `, ${r.mark.replace('_', ' ')}` : ''})`;
      }
      b.title = words;
      b.setAttribute('aria-label', `Move ${i + 1}: ${words}`);
      if (i + 1 === current) b.setAttribute('aria-current', 'step');
      row.append(b);
    });
    const end = this.endWords();
    if (end) {
      const li = document.createElement('li');
      li.className = 'end';
      li.textContent = end;
      rows.push(li);
    }
    ol.replaceChildren(...rows);
    const names = this.$('.history-sides');
    names.replaceChildren(cell(), cell(sideName(first)), cell(sideName(other(first))));
    this.drawSteps();
    // Keep the move shown in sight in the list, which scrolls by itself
    // (scrollIntoView would scroll the page too).
    const at = ol.querySelector('[aria-current="step"]');
    if (!at) {
      ol.scrollTop = 0;
    } else {
      const box = ol.getBoundingClientRect();
      const r = at.getBoundingClientRect();
      if (r.bottom > box.bottom) ol.scrollTop += r.bottom - box.bottom;
      else if (r.top < box.top) ol.scrollTop -= box.top - r.top;
    }
  }

  // ---- The engine's review of a finished game ----

  /** Asks for the review, polls it until it is done, then marks the move list and sums up each side. */
  async startReview() {
    const button = this.$('.review');
    const summary = this.$('.review-summary');
    button.disabled = true;
    summary.hidden = false;
    try {
      let st = await api.requestReview(this.id);
      while (st.state !== 'done' && !this.closed) {
        summary.textContent = `Reviewing… ${st.progress.done} of ${st.progress.total} moves`;
        await new Promise((resolve) => setTimeout(resolve, 1000));
        st = await api.getReview(this.id);
      }
      if (this.closed) return;
      this.review = st.review;
      const side = (name) => {
        const s = st.review[name];
        const c = s.counts;
        return `${sideName(name)} ${s.accuracy.toFixed(1)}% (${plural(c.inaccuracy, 'inaccuracy', 'inaccuracies')}, ${plural(c.mistake, 'mistake')}, ${plural(c.blunder, 'blunder')})`;
      };
      summary.textContent = `Accuracy: ${side('south')} · ${side('north')}`;
      button.hidden = true;
      this.drawHistory();
      this.drawReviewed();
    } catch (err) {
      summary.textContent = err instanceof api.ApiError ? err.detail : String(err);
      button.disabled = false;
    }
  }

  /** How the game ended when its last move did not end it: "South resigned", "North ran out of time". */
  endWords() {
    const g = this.game;
    if (g.status === 'aborted') return 'Game aborted';
    if (g.status !== 'finished' || !g.result || g.result.winner === 'draw') return '';
    const loser = sideName(other(g.result.winner));
    if (g.result.reason === 'resignation') return `${loser} resigned`;
    if (g.result.reason === 'timeout') return `${loser} ran out of time`;
    return '';
  }

  drawSteps() {
    const n = this.history.length;
    const at = this.viewPly === null ? n : this.viewPly;
    const a = this.analysis;
    const enable = a
      ? { start: true, back: true, forward: false, live: true }
      : { start: at > 0, back: at > 0, forward: at < n, live: this.viewPly !== null };
    for (const b of this.root.querySelectorAll('.steps button')) b.disabled = !enable[b.dataset.step];
    this.root.dataset.viewing = a ? 'analysis' : this.viewPly === null ? 'live' : 'past';
  }

  /** A step through the moves: 'start', 'back', 'forward' or 'live'. */
  step(how) {
    const n = this.history.length;
    const at = this.viewPly === null ? n : this.viewPly;
    // In an analysis, back takes its last move back (its first: the game's position again).
    if (this.analysis && how === 'back') return this.analysisBack();
    if (this.analysis && how === 'forward') return;
    const to = { start: 0, back: at - 1, forward: at + 1, live: n }[how];
    if (to === undefined) return;
    this.stepTo(to);
  }

  /**
   * Shows the position after `plies` moves of the list (0: the start), the
   * board not playable; all of them is the game now, playable again.
   */
  stepTo(plies) {
    this.enqueue(async () => {
      if (this.closed) return;
      const n = this.history.length;
      const to = Math.max(0, Math.min(n, plies));
      if (to === n) {
        if (this.viewPly !== null || this.analysis) await this.show();
        return;
      }
      await this.stepToNow(to);
    });
  }

  /** The position the board shows: of the analysis, of the move stepped back to, or the game's now. */
  shownPosition() {
    if (this.analysis) return this.analysis.positions.at(-1);
    if (this.viewPly === null) return this.game.position;
    return this.viewPly === 0 ? this.game.start : this.history[this.viewPly - 1].position;
  }

  // ---- After the game: the review's graph and mistakes, the explorer, analysis ----

  /**
   * What goes with the position shown once the game is over: the engine's
   * verdict on the move played from it (the best move drawn on the board,
   * the line under the graph, the graph's current dot), and the explorer.
   * During the game there is neither: they would be an aid in play.
   */
  drawReviewed() {
    const over = isOver(this.game);
    const r = this.review && !this.analysis ? this.review.plies?.[this.viewPly ?? this.history.length] : null;
    this.board.showHint(r ? { played: r.pit, best: r.best } : null);
    const panel = this.$('.review-panel');
    panel.hidden = !this.review;
    if (this.review) {
      const plies = this.review.plies || [];
      this.$('.graph-host').replaceChildren(scoreGraph(plies, r ? r.ply : null));
      const list = mistakePlies(plies);
      this.$('.prev-mistake').disabled = stepMistake(list, this.reviewAt('prev'), 'prev') === null;
      this.$('.next-mistake').disabled = stepMistake(list, this.reviewAt('next'), 'next') === null;
      let words = '';
      if (r) words = plyWords(r);
      else if (this.analysis) words = 'Analysis: the review speaks of the game’s own moves.';
      else if (!list.length) words = 'No mistake or blunder in this game.';
      this.$('.review-move').textContent = words;
    }
    this.explorer.show(over ? this.shownPosition() : null);
  }

  /**
   * The ply whose verdict the board shows (1 for the first move): one past
   * the moves shown; in an analysis, between the base's and the next. At
   * the game's end the next mistake is the first: there is none after it.
   */
  reviewAt(dir) {
    if (this.analysis) return this.analysis.base + 0.5;
    if (this.viewPly === null && dir === 'next') return 0;
    return (this.viewPly ?? this.history.length) + 1;
  }

  /** Steps to the next ('next') or previous ('prev') mistake or blunder: the position before it, with the best move drawn. */
  stepMistake(dir) {
    if (!this.review) return;
    const ply = stepMistake(mistakePlies(this.review.plies || []), this.reviewAt(dir), dir);
    if (ply === null) return;
    this.stepTo(ply - 1);
    // The buttons are below the board on a phone: the board shows the mistake.
    this.enqueue(async () => {
      if (!this.closed) this.board.root.scrollIntoView({ block: 'nearest' });
    });
  }

  /**
   * Plays pit on the board after the game, from the position shown (null:
   * only starts an analysis there, the board playable): the moves of an
   * analysis change nothing on the server.
   */
  analyse(pit) {
    if (!isOver(this.game)) return;
    this.enqueue(async () => {
      if (this.closed) return;
      if (!this.analysis) {
        const base = this.viewPly ?? this.history.length;
        this.viewPly = base;
        this.analysis = { base, line: [], positions: [this.shownPosition()] };
      }
      const a = this.analysis;
      if (pit !== null) {
        const from = a.positions.at(-1);
        const outcomes = await api.legalMoves(from, this.game.rules);
        if (this.analysis !== a) return;
        const m = outcomes.find((o) => o.pit === pit);
        if (!m || !m.legal) {
          this.setStatus(`${pitName(pit)} cannot be sown here${m?.reason ? ` (${m.reason})` : ''}.`, true);
          return;
        }
        this.board.settle();
        this.board.showHint(null); // the review speaks of the game's moves, not of the analysis's
        await this.board.animate(from, m);
        if (this.analysis !== a) return;
        a.line.push({ move: m, mover: from.toMove });
        a.positions.push(m.position);
        this.app.announce(`Analysis: ${describeMove(m, from.toMove)}`);
      }
      await this.drawAnalysis();
    });
  }

  /** Takes the analysis's last move back; with none, leaves the analysis for the game's position it started from. */
  analysisBack() {
    this.enqueue(async () => {
      const a = this.analysis;
      if (!a) return;
      if (!a.line.length) {
        this.analysis = null;
        this.viewPly = a.base === this.history.length ? null : a.base;
        if (this.viewPly === null) await this.show();
        else await this.stepToNow(a.base);
        return;
      }
      a.line.pop();
      a.positions.pop();
      await this.drawAnalysis();
    });
  }

  /** stepTo's body, for a caller already in the queue. */
  async stepToNow(plies) {
    this.analysis = null;
    const n = this.history.length;
    this.viewPly = plies;
    const m = this.history[plies - 1];
    const before = this.history[plies - 2];
    this.board.settle();
    this.board.render(m ? m.position : this.game.start, { interactive: false, result: m?.result || null });
    this.board.markLast(m || null, m?.side, before ? { move: before, mover: before.side } : null);
    this.board.setCaption(m ? `Move ${plies} of ${n}: ${describeMove(m, m.side)}` : `The start, before move 1 of ${n}.`);
    this.setStatus(`Looking back at move ${plies} of ${n}. → steps on; “Back to the game” returns.`);
    this.drawHistory();
    this.drawReviewed();
  }

  /** The analysis's position on the board, playable, with its line in the caption and the explorer beside it. */
  async drawAnalysis() {
    const a = this.analysis;
    const pos = a.positions.at(-1);
    const last = a.line.at(-1);
    const ended = !!last?.move.result;
    let legal = [];
    if (!ended) legal = (await api.legalMoves(pos, this.game.rules)).filter((o) => o.legal).map((o) => o.pit);
    if (this.analysis !== a || this.closed) return;
    this.board.render(pos, { legal, interactive: legal.length > 0, result: last?.move.result || null, ended: !ended && !legal.length });
    const prev = a.line.at(-2);
    this.board.markLast(last?.move || null, last?.mover, prev ? { move: prev.move, mover: prev.mover } : null);
    const from = a.base ? `after move ${a.base}` : 'from the start';
    const line = a.line.map((s) => `${sideName(s.mover)} ${pitLabel(s.move.pit)}`).join(', ');
    this.board.setCaption(line ? `Analysis ${from}: ${line}.` : `Analysis ${from}: play any pit.`);
    let words = `Analysis: ${sideName(pos.toMove)} to play; choose a pit or a move of the explorer. ← takes a move back; “Back to the game” leaves it.`;
    if (ended) words = 'Analysis: the game would end here. ← takes the move back.';
    else if (!legal.length) words = 'Analysis: no move can be played from here. “Back to the game” leaves it.';
    this.setStatus(words);
    this.drawHistory();
    this.drawReviewed();
    if (legal.length) this.board.focus();
  }

  // ---- Time ----

  /**
   * The clocks to draw for game g. Once it is over, the server's remainingMs
   * is each side's time as the last turn began, so the side whose time ran
   * when the game ended otherwise than by a move (a resignation) would be
   * drawn with the time it had at that turn's start: its clock would jump
   * back at the end. Its time at the end is what its turn's deadline left
   * when the game ended (updatedAt), and that is what is drawn.
   */
  clockOf(g) {
    const clock = g.clock;
    if (!clock || !isOver(g) || !g.updatedAt) return clock;
    const side = g.position.toMove;
    const last = this.history[this.history.length - 1];
    let deadline = null;
    if (last && last.ply === g.ply - 1 && last.clock?.running === side) deadline = last.clock.deadline;
    else if (this.lastRun && this.lastRun.ply === g.ply && this.lastRun.side === side) deadline = this.lastRun.deadline;
    if (!deadline) return clock;
    const left = Math.max(0, Date.parse(deadline) - Date.parse(g.updatedAt));
    if (!(left < clock.remainingMs[side])) return clock;
    return { ...clock, remainingMs: { ...clock.remainingMs, [side]: left } };
  }

  /** Draws both clocks and the first-move countdown, and keeps them ticking while one runs. */
  drawClocks() {
    const g = this.game;
    const clock = this.clock;
    const boxes = { top: this.$('.clock-top'), bottom: this.$('.clock-bottom') };
    const sides = { top: other(this.board.bottom), bottom: this.board.bottom };
    const now = Date.now();
    let ticking = false;
    for (const where of ['top', 'bottom']) {
      const box = boxes[where];
      const side = sides[where];
      box.hidden = !clock || !g.timeControl;
      if (box.hidden) continue;
      const running = !isOver(g) && clock.running === side && clock.deadline;
      let ms = clock.remainingMs?.[side] ?? 0;
      // The running side's time from the server's deadline; never more than
      // the server gave it (a browser clock set late would add time).
      if (running) ms = Math.max(0, Math.min(ms, Date.parse(clock.deadline) - now));
      ticking ||= !!running;
      // The turn whose time runs: its deadline tells the time left if the game ends in it (see clockOf).
      if (running) this.lastRun = { ply: g.ply, side, deadline: clock.deadline };
      box.dataset.side = side;
      box.dataset.ms = String(Math.round(ms));
      box.classList.toggle('running', !!running);
      box.classList.toggle('low', lowTime(ms, g.timeControl));
      box.querySelector('.clock-name').textContent = sideName(side);
      box.querySelector('.clock-time').textContent = formatClock(ms, g.timeControl);
      box.setAttribute('aria-label', `${sideName(side)}'s clock: ${spokenClock(ms)}${running ? ', running' : ''}`);
    }
    // A side's first move has a window of its own, then the game is aborted.
    const ex = g.expiry;
    const line = this.$('.expiry');
    const abort = !isOver(g) && ex && ex.ends === 'abort' && ex.at;
    line.hidden = !abort;
    if (abort) {
      const left = Math.max(0, Date.parse(ex.at) - now);
      ticking = true;
      const mine = ex.side && this.tokens[ex.side] && Object.keys(this.tokens).length === 1;
      const t = formatClock(left, g.timeControl || { kind: 'correspondence' });
      if (!ex.side) line.textContent = `If nobody joins within ${t}, the game is cancelled.`;
      else if (mine) line.textContent = `You have ${t} to make your first move, or the game is aborted.`;
      else line.textContent = `${sideName(ex.side)} has ${t} to make a first move, or the game is aborted.`;
      line.classList.toggle('low', left < 10000);
      line.dataset.ms = String(Math.round(left));
    }
    // A deadline passed: the server ends the game and says so on the stream;
    // ask it too (at most once a second), in case the stream is slow. The
    // page never decides the result itself.
    const due = [clock?.running && clock.deadline, abort && ex.at].filter(Boolean).map(Date.parse);
    if (!isOver(g) && due.some((t) => t <= now) && now - this.overdueAsked > 1000) {
      this.overdueAsked = now;
      this.scheduleCatchUp();
    }
    if (ticking && !this.ticker && !this.closed) this.ticker = setInterval(() => this.drawClocks(), 100);
    if (!ticking && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  // ---- The players ----

  /**
   * Each seat's player above and below the board, as the clocks are: the
   * name (a link to the profile), the rating in the game's category, and,
   * once a rated game has ended, what it did to the rating.
   */
  drawPlayers() {
    const g = this.game;
    const mine = saved.player()?.id;
    const rows = { top: this.$('.seat-top'), bottom: this.$('.seat-bottom') };
    const sides = { top: other(this.board.bottom), bottom: this.board.bottom };
    for (const where of ['top', 'bottom']) {
      const line = rows[where];
      const side = sides[where];
      const p = g.players?.[side];
      const ai = g.ai && g.ai.side === side;
      line.dataset.side = side;
      line.hidden = !p && !ai;
      if (line.hidden) continue;
      const parts = [Object.assign(document.createElement('span'), { className: 'seat-side', textContent: `${sideName(side)}: ` })];
      if (ai) {
        parts.push(`the AI, level ${g.ai.level}`);
      } else {
        const a = document.createElement('a');
        a.className = 'seat-name';
        a.href = `#/player/${encodeURIComponent(p.id)}`;
        a.textContent = p.name;
        parts.push(a);
        if (p.id === mine) parts.push(' (you)');
        if (p.rating !== null && p.rating !== undefined) {
          const r = Object.assign(document.createElement('span'), { className: 'seat-rating', textContent: ratingText(p) });
          r.setAttribute('aria-label', `rating ${p.rating}${p.provisional ? ', provisional' : ''}`);
          parts.push(' ', r);
        }
        if (p.change !== null && p.change !== undefined) {
          const c = Object.assign(document.createElement('span'), { className: 'rating-delta', textContent: signed(p.change) });
          c.dataset.sign = Math.sign(p.change);
          parts.push(' ', c);
        }
      }
      line.replaceChildren(...parts);
    }
  }

  // ---- The end: the result, a rematch ----

  drawResult() {
    const g = this.game;
    const panel = this.$('.result-panel');
    const appears = panel.hidden && isOver(g);
    panel.hidden = !isOver(g);
    if (panel.hidden) return;
    const me = Object.keys(this.tokens);
    const mine = me.length === 1 ? me[0] : null;
    let text;
    let outcome = '';
    if (g.status === 'aborted') {
      text = 'Game aborted';
      this.$('.result-detail').textContent = this.abortText();
    } else {
      const c = g.position.captured;
      const why = REASONS[g.result.reason] || g.result.reason;
      if (mine) {
        outcome = g.result.winner === 'draw' ? 'draw' : g.result.winner === mine ? 'won' : 'lost';
        // A draw reads South–North, as the status line above says it; a
        // win or a loss is the viewer's own score first.
        text = outcome === 'draw' ? `Draw ${c.south}–${c.north} (${why})` : `You ${outcome} ${c[mine]}–${c[other(mine)]} (${why})`;
      } else {
        text = describeResult(g.result, g.position).replace(/\.$/, '');
      }
      // The status line says it from the winner's side already.
      this.$('.result-detail').textContent = '';
    }
    panel.dataset.outcome = outcome;
    this.$('.result-text').textContent = text;
    // A rated game's end moved both players' ratings: say by how much.
    const changes = this.$('.rating-changes');
    const seats = ['south', 'north'].filter((side) => g.players?.[side] && g.players[side].change !== null && g.players[side].change !== undefined);
    changes.hidden = !seats.length;
    changes.replaceChildren(
      ...seats.map((side) => {
        const p = g.players[side];
        const li = document.createElement('li');
        li.dataset.side = side;
        const who = mine === side ? 'Your rating' : `${p.name}'s rating`;
        const delta = Object.assign(document.createElement('span'), { className: 'rating-delta', textContent: signed(p.change) });
        delta.dataset.sign = Math.sign(p.change);
        li.append(`${who}: ${p.rating} → ${p.rating + p.change} (`, delta, ')');
        return li;
      }),
    );
    // A rematch is for the players; anyone may start a game like this one.
    // A tournament pairs its players again by itself.
    this.$('.rematch').hidden = me.length === 0 || !!this.local.tournament;
    // On a phone the panel is below the board: bring it into sight as the game ends.
    if (appears) panel.scrollIntoView({ block: 'nearest' });
  }

  /** This game's settings, as the new-game form takes them (see app.prefill). */
  settings() {
    const g = this.game;
    const me = Object.keys(this.tokens);
    let mode = this.local.mode;
    if (!['ai', 'local', 'friend'].includes(mode)) mode = g.ai ? 'ai' : me.length === 2 ? 'local' : 'friend';
    let seat = me.length === 1 ? me[0] : 'south';
    if (g.ai) seat = other(g.ai.side);
    return { mode, seat, level: g.ai?.level || null, rules: g.rules, start: g.start, timeControl: g.timeControl, rated: g.rated };
  }

  /** The same game again with the seats swapped: a new game, opened at once (with its link, against a friend). */
  rematch() {
    if (this.local.mode === 'lobby') return this.rematchPlayer();
    const s = this.settings();
    if (s.mode !== 'local') s.seat = other(s.seat);
    const button = this.$('.rematch');
    button.disabled = true;
    this.app.startGame(s).catch((err) => {
      button.disabled = false;
      this.fail(err);
    });
  }

  // ---- Offers: a draw, a takeback; a rematch between players ----

  /** The one seat this browser holds in a game between two people, or null. */
  mySeat() {
    const me = Object.keys(this.tokens);
    if (me.length !== 1 || this.game.ai) return null;
    return me[0];
  }

  /**
   * The draw and takeback buttons of a seat here, in a game between two
   * people in play, and the offers that stand: the opponent's, with buttons
   * to accept or refuse it, and one's own, to withdraw. A takeback is for an
   * unrated game only, once this seat has moved.
   */
  drawOffers() {
    const g = this.game;
    const mine = this.mySeat();
    const box = this.$('.offers');
    const live = !!mine && g.status === 'active';
    const offers = g.offers || { draw: null, takeback: null };
    const moved = this.history.some((m) => m.side === mine) || (g.lastMove && g.lastMove.side === mine);
    this.$('.offer-draw').hidden = !live || !!offers.draw;
    this.$('.ask-takeback').hidden = !live || g.rated || !!offers.takeback || !moved;
    const parts = [];
    if (live) {
      for (const kind of ['draw', 'takeback']) {
        const by = offers[kind];
        if (!by) continue;
        const p = document.createElement('p');
        p.className = 'offer';
        p.dataset.offer = kind;
        p.dataset.by = by === mine ? 'me' : 'opponent';
        const button = (text, answer, primary) => {
          const b = Object.assign(document.createElement('button'), { type: 'button', textContent: text, className: primary ? 'primary' : '' });
          b.dataset.offer = kind;
          b.dataset.answer = answer;
          return b;
        };
        if (by === mine) {
          p.append(kind === 'draw' ? 'You offered a draw. ' : 'You asked for a takeback. ', button('Withdraw', 'no'));
        } else {
          p.append(kind === 'draw' ? 'Your opponent offers a draw. ' : 'Your opponent asks to take back their last move. ', button('Accept', 'yes', true), ' ', button('Decline', 'no'));
        }
        parts.push(p);
      }
    }
    box.replaceChildren(...parts);
  }

  /** Makes or accepts (yes) an offer of kind 'draw' or 'takeback', or refuses or withdraws one (no). */
  answer(kind, yes) {
    const side = this.mySeat();
    if (!side) return;
    this.enqueue(async () => {
      const send = kind === 'draw' ? api.offerDraw : api.offerTakeback;
      const g = await send(this.id, this.tokens[side], yes);
      // An accepted takeback: the undone moves leave the list.
      if (g.ply < this.game.ply) this.history = this.history.filter((m) => m.ply < g.ply);
      this.game = g;
      await this.show();
      if (isOver(g)) return;
      const by = g.offers?.[kind];
      if (by === side) this.setStatus(kind === 'draw' ? 'Draw offered: waiting for your opponent to answer.' : 'Takeback asked: waiting for your opponent to answer.');
    });
  }

  /**
   * A rematch of a game met in the lobby: asked as the player; the game
   * starts when the opponent asks too (at once if they had). The player's
   * event stream, followed once the game is over, says when they ask and
   * when the new game starts.
   */
  rematchPlayer() {
    const button = this.$('.rematch');
    button.disabled = true;
    this.enqueue(async () => {
      try {
        const c = await api.rematch(this.id);
        if (c.status === 'accepted' && c.game) {
          this.openGame(c.game, c.side);
          return;
        }
        this.rematchAsked = true;
        this.$('.result-detail').textContent = 'Rematch asked: the new game starts when your opponent accepts.';
      } catch (err) {
        button.disabled = false;
        throw err;
      }
    });
  }

  /** Follows the player's events once a lobby game is over: rematch asked, rematch started. */
  followPlayer() {
    if (this.stopPlayer || this.closed || this.local.mode !== 'lobby') return;
    this.stopPlayer = api.followPlayer(({ type, data }) => {
      if (this.closed || !data) return;
      const c = data.challenge;
      if (type === 'challenge' && c?.rematchOf === this.id && c.status === 'pending' && c.from?.id !== saved.player()?.id) {
        this.$('.result-detail').textContent = 'Your opponent asks for a rematch.';
        this.$('.rematch').textContent = 'Accept the rematch';
      }
      if (type === 'gameStart' && data.gameId && data.gameId !== this.id && this.rematchAsked) this.openGame(data.gameId, data.side);
    });
  }

  // ---- A tournament game: the way back to its event, berserk ----

  /** Whether this page shows a game in play in which this browser holds a seat. */
  inPlay() {
    return !!this.game && !isOver(this.game) && Object.keys(this.tokens || {}).length > 0;
  }

  /**
   * A game a tournament made for this browser's player (the page was told
   * so when it opened): a link back to the event and, in an arena that
   * allows it, Berserk until the player's first move.
   */
  async loadTournament() {
    const tid = this.local.tournament;
    if (!tid) return;
    const link = this.$('.to-tournament');
    link.href = `#/tournament/${encodeURIComponent(tid)}`;
    link.hidden = false;
    try {
      const [v, games] = await Promise.all([api.getTournament(tid, 1, 1), api.tournamentGames(tid)]);
      if (this.closed) return;
      this.tournament = v.tournament;
      link.textContent = `Back to ${v.tournament.name}`;
      const side = this.mySeat();
      this.berserked = !!(side && games.find((g) => g.id === this.id)?.berserk?.[side]);
      this.drawBerserk();
    } catch {
      // The link still leads to the event; Berserk stays hidden.
    }
  }

  /** Berserk shows for the player's seat in an arena game that allows it, before the seat's first move. */
  drawBerserk() {
    const g = this.game;
    const side = this.mySeat();
    const t = this.tournament;
    const before = side === 'north' ? g.ply <= 1 : g.ply === 0;
    this.$('.berserk').hidden = !(side && this.tokens[side] === api.PLAYER_SEAT && t?.kind === 'arena' && t.berserk &&
      g.status === 'active' && before && !this.berserked);
    this.root.dataset.berserk = String(!!this.berserked);
  }

  /** Halves this player's clock, for a point more if the game is won. */
  goBerserk() {
    const button = this.$('.berserk');
    button.disabled = true;
    this.enqueue(async () => {
      try {
        await api.berserk(this.id);
        this.berserked = true;
        await this.catchUp();
        this.setStatus('Berserk: your clock is halved; a win scores a point more.');
      } finally {
        button.disabled = false;
        this.drawBerserk();
      }
    });
  }

  /** Opens another game of the player's as its seat. */
  openGame(id, side) {
    if (side && !saved.savedGame(id)?.tokens?.[side]) saved.saveSeat(id, side, api.PLAYER_SEAT, 'lobby');
    location.hash = `#/game/${encodeURIComponent(id)}`;
  }

  skip() {
    this.board.skip();
  }

  resign() {
    const me = Object.keys(this.tokens);
    const side = me.length === 2 ? this.game.position.toMove : me[0];
    const button = this.$('.resign');
    if (!this.resignArmed) {
      this.resignArmed = true;
      button.textContent = `Confirm: ${sideName(side)} resigns`;
      setTimeout(() => {
        this.resignArmed = false;
        button.textContent = 'Resign';
      }, 4000);
      return;
    }
    this.resignArmed = false;
    button.textContent = 'Resign';
    this.enqueue(async () => {
      this.game = await api.resign(this.id, this.tokens[side]);
      await this.show();
    });
  }

  async copyLink() {
    const input = this.$('#share-link');
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
      this.setStatus('Link copied. Waiting for your friend to open it…');
    } catch {
      this.setStatus('Select the link and copy it to send it.');
    }
  }
}

function cell(text = '') {
  const s = document.createElement('span');
  s.textContent = text;
  return s;
}

/** What the facts line says of a game: {ply, status, toMove, result}. */
function stateOf(g) {
  return { ply: g.ply, status: g.status, toMove: g.position.toMove, result: g.result };
}

/** The same, just after move m was shown (before the game's end, if it did not end it); g when there is no move. */
function stateAfter(m, g) {
  if (!m) return { ply: 0, status: g.status === 'waiting' ? 'waiting' : 'active', toMove: g.start.toMove, result: null };
  return { ply: m.ply + 1, status: m.result ? 'finished' : 'active', toMove: m.position.toMove, result: m.result };
}

export function shareLink(id) {
  return `${location.origin}${location.pathname}#/join/${encodeURIComponent(id)}`;
}

// ---- Time controls and clocks in words ----

/** The presets of the new-game form, by the value of its select. */
export const TIME_CONTROLS = {
  '': null,
  '3+2': { kind: 'clock', initialSeconds: 180, incrementSeconds: 2 },
  '5+3': { kind: 'clock', initialSeconds: 300, incrementSeconds: 3 },
  '10+0': { kind: 'clock', initialSeconds: 600, incrementSeconds: 0 },
  '1d': { kind: 'correspondence', daysPerMove: 1 },
  '3d': { kind: 'correspondence', daysPerMove: 3 },
  '7d': { kind: 'correspondence', daysPerMove: 7 },
};

/** The key of TIME_CONTROLS for a time control: "3+2", "3d", "" (untimed). */
export function timeControlKey(tc) {
  if (!tc) return '';
  if (tc.kind === 'correspondence') return `${tc.daysPerMove}d`;
  const min = tc.initialSeconds / 60;
  return `${Number.isInteger(min) ? min : `${tc.initialSeconds}s`}+${tc.incrementSeconds}`;
}

/** A time control in words: "3+2 clock", "3 days a move", "untimed". */
export function timeControlName(tc) {
  if (!tc) return 'untimed';
  if (tc.kind === 'correspondence') return tc.daysPerMove === 1 ? '1 day a move' : `${tc.daysPerMove} days a move`;
  return `${timeControlKey(tc)} clock`;
}

/** Low on time: under 10 s or a tenth of the start (an hour or a tenth for days a move). */
function lowTime(ms, tc) {
  if (!tc) return false;
  if (tc.kind === 'correspondence') return ms < Math.max(3600e3, tc.daysPerMove * 8640e3);
  return ms < Math.max(10e3, tc.initialSeconds * 100);
}

const pad = (n) => String(n).padStart(2, '0');

/** A clock's time: 4:05, 1:02:03, 0:07.3 under ten seconds; 2 d 5 h or 5 h 10 min for days a move. */
export function formatClock(ms, tc) {
  const t = Math.max(0, ms);
  if (tc?.kind === 'correspondence' && t >= 3600e3) {
    const h = Math.floor(t / 3600e3);
    if (h >= 24) return `${Math.floor(h / 24)} d ${h % 24} h`;
    return `${h} h ${Math.floor((t % 3600e3) / 60e3)} min`;
  }
  if (t < 10e3) return `0:0${(Math.floor(t / 100) / 10).toFixed(1)}`;
  const s = Math.ceil(t / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

function spokenClock(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  if (s >= 86400) return `${Math.floor(s / 86400)} days ${Math.floor((s % 86400) / 3600)} hours`;
  if (s >= 3600) return `${Math.floor(s / 3600)} hours ${Math.floor((s % 3600) / 60)} minutes`;
  return `${Math.floor(s / 60)} minutes ${s % 60} seconds`;
}
