// A game session: the board, whose turn, the status line, moves sent with the
// seat's token, and the other side's moves arriving live from the game's
// event stream.

import * as api from './api.js';
import { Board, describeMove, describeResult, resultShort, sideName, other } from './board.js';
import * as saved from './store.js';
import { serialQueue } from './queue.js';

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
    this.resignArmed = false;
    this.$ = (sel) => root.querySelector(sel);
    this.board = new Board(this.$('.board-host'), { onPlay: (pit) => this.play(pit), label: 'Ayoayo board' });
    this.board.speed = saved.speed();
    this.$('.skip').addEventListener('click', () => this.skip());
    this.$('.resign').addEventListener('click', () => this.resign());
    this.$('.copy').addEventListener('click', () => this.copyLink());
  }

  async start(notice) {
    this.local = saved.savedGame(this.id) || { tokens: {}, mode: 'watch' };
    this.tokens = this.local.tokens || {};
    const seats = Object.keys(this.tokens);
    this.board.setPerspective(seats.length === 1 ? seats[0] : 'south');
    const g = await api.getGame(this.id);
    this.game = g;
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
    await this.enqueue(async () => {
      if (from < g.ply) {
        let pos = from === 0 ? g.start : moves[from - 1].position;
        this.board.render(pos, { interactive: false });
        this.board.markLast(this.history[from - 1] || null, this.history[from - 1]?.side);
        this.$('.skip').hidden = false;
        for (const m of moves.slice(from)) {
          await this.showMove(pos, m, m.side);
          pos = m.position;
        }
        this.$('.skip').hidden = true;
      }
      await this.show();
      this.markLast();
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

  /** Rings the game's last move on the board: from the history, else from the game's brief lastMove. */
  markLast() {
    const m = this.history[this.history.length - 1];
    const brief = this.game.lastMove;
    if (m && (!brief || m.ply === brief.ply)) this.board.markLast(m, m.side);
    else if (brief) this.board.markLast({ pit: brief.pit, legs: [] }, brief.side);
  }

  /** Stops everything this view started: the event stream, timers, animations. */
  close() {
    this.closed = true;
    this.stopFollowing();
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
    if (this.game.status === 'finished') return;
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

  /** A finished game changes no more: stop listening. */
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
    this.board.settle();
    this.board.render(g.position, { interactive: false, result: g.result });
    if (mover) {
      try {
        const moves = await api.legalMoves(g.position, g.rules);
        if (this.closed || this.game !== g) return;
        this.board.render(g.position, { legal: moves.filter((m) => m.legal).map((m) => m.pit), interactive: true });
      } catch (err) {
        this.fail(err);
      }
    }
    this.drawFacts();
    this.setStatus(this.statusText());
    const me = Object.keys(this.tokens);
    // Someone watching is told so for as long as they watch, not once.
    this.$('.seat-badge').hidden = me.length > 0;
    this.$('.resign').hidden = !(g.status === 'active' && me.length > 0 && (mover || me.length === 1));
    const share = this.$('.share');
    share.hidden = !(g.status === 'waiting' && me.length === 1);
    if (!share.hidden) this.$('#share-link').value = shareLink(this.id);
    saved.setGameSummary(this.id, { status: g.status, ply: g.ply, title: this.titleText() });
    if (g.status === 'finished') this.stopFollowing();
  }

  titleText() {
    const g = this.game;
    const me = Object.keys(this.tokens);
    if (g.ai) {
      const human = other(g.ai.side);
      return me.includes(human) ? `You (${sideName(human)}) against the AI, level ${g.ai.level}` : `${sideName(human)} against the AI, level ${g.ai.level}`;
    }
    if (me.length === 2) return 'South and North at one screen';
    if (me.length === 1) return `You (${sideName(me[0])}) against a friend`;
    return 'South against North';
  }

  statusText() {
    const g = this.game;
    const me = Object.keys(this.tokens);
    if (g.status === 'finished') return `Game over. ${describeResult(g.result, g.position)}`;
    if (g.status === 'waiting') return me.length ? 'Waiting for your friend to open the link…' : 'Waiting for the second player…';
    const side = g.position.toMove;
    if (g.ai && g.ai.side === side) return 'The AI is thinking…';
    if (this.myTurn()) {
      return me.length === 2 ? `${sideName(side)} to move: choose a highlighted pit.` : `Your move (${sideName(side)}): choose a highlighted pit.`;
    }
    return me.length ? `Waiting for ${sideName(side)}'s move…` : `${sideName(side)} to move.`;
  }

  drawFacts() {
    const g = this.game;
    this.$('.game-title').textContent = this.titleText();
    const facts = this.$('.facts');
    const statusWords = { waiting: 'waiting for a player', active: 'in play', finished: 'finished' };
    facts.querySelector('[data-fact="ply"]').textContent = String(g.ply);
    const st = facts.querySelector('[data-fact="status"]');
    st.textContent = statusWords[g.status] || g.status;
    st.dataset.value = g.status;
    const turn = facts.querySelector('[data-fact="turn"]');
    turn.textContent = g.status === 'finished' ? resultShort(g.result) : `${sideName(g.position.toMove)} to move`;
    turn.dataset.value = g.status === 'finished' ? '' : g.position.toMove;
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
    if (this.busy || !side) return;
    this.busy = true;
    this.enqueue(async () => {
      const before = this.game;
      this.board.render(before.position, { interactive: false });
      this.setStatus(`${sideName(side)} sows pit ${pit}…`);
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
      this.$('.skip').hidden = false;
      await this.showMove(before.position, res.move, side);
      if (res.reply) await this.showMove(res.move.position, res.reply, other(side));
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
    this.setStatus(move.byAi ? `The AI (${sideName(mover)}) sows pit ${move.pit}…` : `${sideName(mover)} sows pit ${move.pit}…`);
    await this.board.animate(before, move);
    this.history.push({ ...move, side: move.side || mover });
    this.drawHistory();
    this.app.announce(describeMove(move, mover));
  }

  /** Brings the page up to the server's game: animates moves not yet shown, then shows the game. */
  async catchUp() {
    if (this.closed || this.busy) return;
    const fresh = await api.getGame(this.id);
    if (fresh.ply > this.game.ply) {
      const moves = await api.gameMoves(this.id, this.game.ply);
      let pos = this.game.position;
      this.$('.skip').hidden = false;
      for (const m of moves) {
        if (m.ply < this.game.ply || this.history.some((h) => h.ply === m.ply)) continue;
        await this.showMove(pos, m, m.side || pos.toMove);
        pos = m.position;
      }
      this.$('.skip').hidden = true;
    }
    this.game = fresh;
    await this.show();
  }

  drawHistory() {
    const ol = this.$('.history');
    ol.replaceChildren(
      ...this.history.map((m) => {
        const li = document.createElement('li');
        li.textContent = describeMove(m, m.side);
        return li;
      }),
    );
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

export function shareLink(id) {
  return `${location.origin}${location.pathname}#/join/${encodeURIComponent(id)}`;
}
