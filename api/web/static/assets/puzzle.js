// The daily puzzle: the position and the prompt, a move tried on the board and
// judged by the server, the feedback with every move's outcome, the solution
// replayed, and what the first attempt did to the player's puzzle rating and
// the daily streak; practice puzzles, the same way, one after another; and
// the archive of earlier days.

import * as api from './api.js';
import { Board, describeMove, pitLabel, plural, sideName } from './board.js';
import * as saved from './store.js';
import { serialQueue } from './queue.js';
import { ratingText, signed } from './ratings.js';

const GOALS = {
  max_capture: 'Biggest capture',
  win: 'Forced win',
  defend: 'Defence',
  endgame: 'Endgame',
};

export function goalName(goal) {
  return GOALS[goal] || String(goal || '').replace(/_/g, ' ');
}

export function stars(n) {
  const d = Math.max(0, Math.min(5, Number(n) || 0));
  return '★'.repeat(d) + '☆'.repeat(5 - d);
}

/** How often the puzzle was solved, in words: "not solved yet", "solved twice in 5 attempts". */
export function solvedText({ solved = 0, attempts = 0 } = {}) {
  if (!solved) return attempts ? `not solved yet (${plural(attempts, 'attempt')})` : 'not solved yet';
  const times = solved === 1 ? 'once' : solved === 2 ? 'twice' : `${solved} times`;
  return `solved ${times} in ${plural(attempts, 'attempt')}`;
}

export class PuzzleView {
  constructor(root, app) {
    this.root = root;
    this.app = app;
    this.enqueue = serialQueue(root, (err) => this.fail(err));
    this.closed = false;
    this.$ = (sel) => root.querySelector(sel);
    this.board = new Board(this.$('.board-host'), { onPlay: (pit) => this.play(pit), label: 'Puzzle board' });
    this.board.speed = saved.speed();
    this.$('.skip').addEventListener('click', () => this.board.skip());
    this.$('.retry').addEventListener('click', () => this.enqueue(() => this.reset()));
    this.$('.give-up').addEventListener('click', () => this.enqueue(() => this.giveUp()));
    this.ratingAsked = 0;
  }

  async start(date) {
    const p = await api.dailyPuzzle(date);
    await this.show(p, date ? `Puzzle of ${p.date}` : `Daily puzzle · ${p.date}`);
  }

  /** Shows the puzzle p, under the title, ready to play. */
  async show(p, title) {
    this.setPuzzle(p, title);
    await this.enqueue(() => this.reset());
  }

  /** Takes p as the puzzle: its title, meta line, prompt and the board's side (reset() sets the board up). */
  setPuzzle(p, title) {
    this.puzzle = p;
    this.revealed = false;
    this.started = false; // a move tried on it: see PracticeView.filterChanged
    this.root.dataset.puzzleId = p.id;
    this.$('#puzzle-title').textContent = title;
    this.drawMeta(p.stats);
    this.$('.prompt').textContent = p.prompt;
    this.board.setPerspective(p.position.toMove);
    this.drawRating(null);
  }

  /**
   * The line under the feedback: this browser's player's puzzle rating and
   * daily streak, as the server has them now, and change (a RatingChange:
   * what the first attempt at this puzzle did to the rating) once there is
   * one. Only the newest of overlapping asks is drawn.
   */
  async drawRating(change) {
    const mine = saved.player();
    const ask = ++this.ratingAsked;
    if (change) this.change = change;
    else this.change = null;
    const line = this.$('.puzzle-rating');
    const deltaEl = this.$('.rating-change');
    deltaEl.textContent = this.change ? signed(this.change.change) : '';
    deltaEl.dataset.sign = this.change ? String(Math.sign(this.change.change)) : '';
    if (this.change) deltaEl.setAttribute('aria-label', `changed by ${this.change.change}`);
    else deltaEl.removeAttribute('aria-label');
    this.$('.rating-change-words').hidden = !this.change;
    if (this.change) {
      line.hidden = false;
      this.$('.rating-now').textContent = String(this.change.after);
    }
    if (!mine) return;
    let p;
    try {
      p = await api.getPlayer(mine.id);
    } catch {
      return; // the line is a convenience: the puzzle goes on without it
    }
    if (this.closed || ask !== this.ratingAsked) return;
    line.hidden = false;
    this.$('.my-rating').href = `#/player/${encodeURIComponent(p.id)}`;
    this.$('.rating-now').textContent = ratingText(p.ratings.puzzle);
    this.$('.streak').textContent = ` · daily streak: ${plural(p.streak, 'day')}`;
    this.root.dataset.streak = String(p.streak);
  }

  /** After an attempt: what it did to the rating, in the line and in words for the feedback. */
  rated(res) {
    if (!res.rated || !res.rating?.player) return '';
    const change = res.rating.player;
    if (res.rating.puzzle) this.puzzle.rating = res.rating.puzzle.after;
    this.drawRating(change);
    // The rating first, then the change: a change alone ("−135") reads as
    // the rating itself.
    return ` Your puzzle rating is now ${change.after} (${signed(change.change)}).`;
  }

  /**
   * The line under the title: difficulty, goal, how often solved; once the
   * puzzle is solved or its solution shown, the key move's legs and the
   * themes too (before, they would give the answer away).
   */
  drawMeta(stats) {
    const p = this.puzzle;
    if (stats) this.stats = stats;
    const meta = this.$('.puzzle-meta');
    const diff = document.createElement('span');
    diff.textContent = stars(p.difficulty);
    diff.setAttribute('aria-label', `difficulty ${p.difficulty} of 5`);
    diff.className = 'stars';
    const parts = [goalName(p.goal)];
    if (p.rating !== null && p.rating !== undefined) parts.push(`puzzle rating ${p.rating}`);
    if (this.revealed) {
      parts.push(`key move relays through ${p.keyLegs} legs`);
      const themes = p.themes.filter((t) => t !== p.goal);
      if (themes.length) parts.push(themes.map(goalName).join(', '));
    }
    // A practice puzzle's attempts are not counted: no stats to show.
    if (p.date) parts.push(solvedText(this.stats));
    meta.replaceChildren(diff, ' · ' + parts.join(' · '));
  }

  close() {
    this.closed = true;
    this.board.skip();
  }

  fail(err) {
    if (this.closed) return;
    this.setFeedback(err instanceof api.ApiError ? err.detail : String(err), 'error');
    this.$('.skip').hidden = true;
  }

  setFeedback(text, result) {
    const f = this.$('.feedback');
    f.textContent = text;
    f.dataset.result = result;
    f.classList.toggle('problem', result === 'error');
    f.classList.toggle('good', result === 'correct');
  }

  /** Back to the puzzle's position with nothing tried. */
  async reset() {
    this.tried = [];
    this.shown = 0;
    this.position = this.puzzle.position;
    this.done = false;
    this.$('.retry').hidden = true;
    this.$('.give-up').hidden = false;
    this.$('.explanation').replaceChildren();
    this.board.settle();
    this.board.markLast(null);
    await this.offerMoves();
    const solver = sideName(this.puzzle.position.toMove);
    this.setFeedback(`${solver} to play. Choose a highlighted pit.`, 'pending');
  }

  async offerMoves() {
    const pos = this.position;
    this.board.render(pos, { interactive: false });
    const moves = await api.legalMoves(pos, this.puzzle.rules);
    if (this.closed || this.position !== pos) return;
    this.board.render(pos, { legal: moves.filter((m) => m.legal).map((m) => m.pit), interactive: !this.done });
  }

  play(pit) {
    if (this.done || this.playing) return;
    this.playing = true;
    this.started = true;
    this.enqueue(async () => {
      try {
        this.board.render(this.position, { interactive: false });
        this.setFeedback(`Checking pit ${pitLabel(pit)}…`, 'pending');
        const moves = [...this.tried, pit];
        const res = await api.attemptPuzzle(this.puzzle.id, moves);
        if (res.stats) this.drawMeta(res.stats);
        const rating = this.rated(res);
        await this.replay(res.explanation);
        if (!res.correct) {
          this.done = true;
          this.setFeedback(`Not the answer: ${verdict(this.puzzle, pit, false)}. Try again, or see the solution.${rating}`, 'incorrect');
          this.$('.retry').hidden = false;
          // The words say "Try again": the button too, even after a solve renamed it.
          this.$('.retry').textContent = 'Try again';
          this.board.render(this.position, { interactive: false });
          return;
        }
        this.tried = moves;
        if (res.complete) {
          this.done = true;
          this.revealed = true;
          this.drawMeta(res.stats);
          saved.markSolved(this.puzzle.id);
          this.setFeedback(`Correct! ${capitalize(verdict(this.puzzle, moves[0], true))}. Puzzle solved.${rating}`, 'correct');
          this.$('.give-up').hidden = true;
          this.$('.retry').hidden = false;
          this.$('.retry').textContent = 'Play it again';
          if (res.solution) this.listLine(res.solution, 'The whole line');
          this.board.render(this.position, { interactive: false });
          return;
        }
        this.setFeedback(`Right so far. ${sideName(this.position.toMove)} to play again: find the next move.`, 'partial');
        await this.offerMoves();
      } finally {
        this.playing = false;
      }
    });
  }

  /** Animates the explained moves not yet on the board and lists them. */
  async replay(explanation) {
    this.$('.skip').hidden = false;
    for (let i = this.shown; i < explanation.length; i++) {
      const m = explanation[i];
      const mover = m.side || this.position.toMove;
      await this.board.animate(this.position, m);
      this.addLine(m, mover);
      this.app.announce(describeMove(m, mover));
      this.position = m.position;
    }
    this.shown = explanation.length;
    this.$('.skip').hidden = true;
    this.board.settle();
  }

  addLine(m, mover) {
    const li = document.createElement('li');
    li.textContent = describeMove(m, mover);
    this.$('.explanation').append(li);
  }

  listLine(line, heading) {
    const ol = this.$('.explanation');
    ol.replaceChildren();
    let pos = this.puzzle.position;
    for (const m of line) {
      const mover = m.side || pos.toMove;
      this.addLine(m, mover);
      pos = m.position || pos;
    }
    ol.setAttribute('aria-label', heading);
  }

  /** Shows the solution: replays the whole line from the puzzle's position. */
  async giveUp() {
    this.done = true;
    this.revealed = true;
    const res = await api.attemptPuzzle(this.puzzle.id, this.tried, true);
    this.drawMeta(res.stats);
    const rating = this.rated(res);
    const line = res.solution || (await api.puzzleSolution(this.puzzle.id));
    this.$('.give-up').hidden = true;
    this.$('.retry').hidden = false;
    this.$('.explanation').replaceChildren();
    this.position = this.puzzle.position;
    this.shown = 0;
    this.board.render(this.position, { interactive: false });
    this.board.markLast(null);
    this.setFeedback(`The solution: ${sideName(this.puzzle.position.toMove)} sows pit ${line[0] ? pitLabel(line[0].pit) : '?'}.${rating}`, 'solution');
    await this.replay(line);
    this.board.render(this.position, { interactive: false });
  }
}

const capitalize = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// What the move did or did not do, in the puzzle's own terms. pit is the
// API's (0-11); the player reads it as the board numbers it (1-6).
function verdict(p, apiPit, right) {
  const pit = pitLabel(apiPit);
  switch (p.goal) {
    case 'max_capture': return right ? `pit ${pit} captures the most seeds` : `pit ${pit} does not capture the most seeds`;
    case 'win': return right ? `pit ${pit} forces the win` : `pit ${pit} does not force the win`;
    case 'defend': return right ? `pit ${pit} is the one safe defence` : `pit ${pit} leaves a big capture to the opponent`;
    case 'endgame': return right ? `pit ${pit} keeps the win` : `pit ${pit} gives up the win`;
    default: return right ? `pit ${pit} solves the puzzle` : `pit ${pit} is not the answer`;
  }
}

/**
 * More puzzles: practice puzzles of the difficulty and goal chosen, played as
 * the daily one is. "Another puzzle" asks for the next one after the puzzle
 * shown (so none repeats); changing the filter starts afresh. The address
 * follows the puzzle (#/practice/ID), so a reload or a shared link shows it
 * again.
 */
/** How long the practice filter rests after a change before a puzzle loads (ms). */
const FILTER_PAUSE = 400;

export class PracticeView extends PuzzleView {
  constructor(root, app) {
    super(root, app);
    // The daily puzzle's page, with the filter and the practice links.
    for (const el of root.querySelectorAll('.daily-only')) el.hidden = true;
    for (const el of root.querySelectorAll('.practice-only, .practice-filter')) el.hidden = false;
    this.$('#puzzle-title').textContent = 'More puzzles';
    this.form = this.$('.practice-filter');
    this.form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.another();
    });
    // Filters changed one after another make one load, once they rest.
    this.form.addEventListener('change', () => {
      clearTimeout(this.filterTimer);
      this.filterTimer = setTimeout(() => this.filterChanged(), FILTER_PAUSE);
    });
  }

  close() {
    clearTimeout(this.filterTimer);
    super.close();
  }

  /**
   * A puzzle the player has started (a move tried, neither solved nor its
   * solution shown) is theirs to finish: the new filter waits for "Another puzzle".
   */
  filterChanged() {
    if (this.closed) return;
    if (this.started && !this.revealed) {
      const note = this.$('.filter-note');
      note.textContent = 'This puzzle is kept until you finish it: “Another puzzle” brings one of the new filter.';
      note.hidden = false;
      return;
    }
    this.another();
  }

  async start(id) {
    if (!id) return this.another();
    const p = await api.puzzle(id);
    const f = api.practiceFilter(p.id);
    if (!f) throw new api.ApiError(404, { detail: `${id} is not a practice puzzle.` });
    this.form.elements.difficulty.value = f.difficulty;
    this.form.elements.goal.value = f.goal;
    await this.show(p, 'Practice puzzle');
  }

  /** The chosen filter; difficulty 'me': around the player's puzzle rating (near). */
  filter() {
    const difficulty = this.form.elements.difficulty.value;
    return { difficulty, goal: this.form.elements.goal.value, near: difficulty === 'me' };
  }

  /** The next puzzle of the chosen filter: after the one shown, if it is of that filter. */
  another() {
    clearTimeout(this.filterTimer);
    this.$('.filter-note').hidden = true;
    return this.enqueue(async () => {
      const f = this.filter();
      const shown = api.practiceFilter(this.puzzle?.id);
      // Around the rating, the grade is the server's choice: the same goal is the same walk.
      const same = shown && (f.near || shown.difficulty === f.difficulty) && shown.goal === f.goal && !shown.theme;
      const button = this.$('.another');
      button.disabled = true;
      this.setFeedback('Finding a puzzle…', 'pending');
      let p;
      try {
        p = await api.practicePuzzle({ difficulty: f.near ? undefined : f.difficulty, goal: f.goal, near: f.near, after: same ? this.puzzle.id : undefined });
      } catch (err) {
        this.setFeedback(err instanceof api.ApiError ? problemText(err) : String(err), 'error');
        return;
      } finally {
        button.disabled = false;
      }
      // The address follows without a new history entry or a route.
      history.replaceState(null, '', `#/practice/${encodeURIComponent(p.id)}`);
      this.setPuzzle(p, 'Practice puzzle');
      await this.reset();
    });
  }
}

// A practice problem in the player's terms.
function problemText(err) {
  switch (err.code) {
    case 'no_practice_puzzle': return 'No puzzle has that difficulty and goal (a defence is never the easiest), or none was found lately. Choose another.';
    case 'practice_timeout': return 'No puzzle was found in time. Ask again: the server keeps looking from where it stopped.';
    case 'rate_limited':
    case 'practice_busy': return 'The server is busy making puzzles. Ask again in a few seconds.';
    case 'not_ready': return 'This server has no practice puzzles.';
    default: return err.detail;
  }
}

export class ArchiveView {
  constructor(root) {
    this.root = root;
    this.next = undefined;
    this.$ = (sel) => root.querySelector(sel);
    this.$('.more').addEventListener('click', () => this.load());
  }

  async start() {
    await this.load();
  }

  close() {}

  async load() {
    const status = this.$('.status');
    try {
      const { puzzles, next } = await api.puzzleArchive(this.next, 10);
      const solved = saved.solvedPuzzles();
      const ul = this.$('.puzzle-list');
      for (const p of puzzles) {
        const li = document.createElement('li');
        const a = document.createElement('a');
        a.href = `#/puzzle/${p.date}`;
        a.textContent = p.date;
        const s = document.createElement('span');
        s.className = 'stars';
        s.textContent = stars(p.difficulty);
        s.setAttribute('aria-label', `difficulty ${p.difficulty} of 5`);
        li.append(a, ' · ', goalName(p.goal), ' · ', s);
        // The key move's legs are a hint: told only of a puzzle solved here.
        if (solved.has(p.id)) li.append(` · ${p.keyLegs} legs · solved here ✓`);
        ul.append(li);
      }
      this.next = next;
      this.$('.more').hidden = !next;
      status.textContent = ul.childElementCount ? '' : 'No puzzles yet.';
    } catch (err) {
      status.textContent = err.detail || String(err);
      status.classList.add('problem');
    }
  }
}
