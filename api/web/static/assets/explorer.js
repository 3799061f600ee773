// The opening explorer beside the board of a game that is over (its review,
// and the analysis from it): what was played from the position shown in the
// finished rated games the server indexes, each move with its results
// (South's wins, draws, North's wins, as a bar), the games' average rating,
// a few recent games and the engine's score; a move's button plays it on the
// board. The category and the range of ratings are chosen above the list.

import * as api from './api.js';
import { pitLabel, sideName, plural } from './board.js';

/** How long to wait before asking again for scores the engine was still computing. */
const RETRY_MS = 1500;

/** A score in seeds with its sign: "+3", "−2", "0". */
export function signedScore(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `−${-n}`;
  return '0';
}

/**
 * The three parts of a results bar in whole percents that add up to 100
 * (each part rounded down, the remainder given to the largest
 * fractions): {south, draws, north}. No games: all zero.
 */
export function barShares(south, draws, north) {
  const total = south + draws + north;
  if (!total) return { south: 0, draws: 0, north: 0 };
  const parts = [
    ['south', south],
    ['draws', draws],
    ['north', north],
  ].map(([k, n]) => ({ k, exact: (n * 100) / total }));
  for (const p of parts) p.whole = Math.floor(p.exact);
  let left = 100 - parts.reduce((s, p) => s + p.whole, 0);
  for (const p of [...parts].sort((a, b) => b.exact - b.whole - (a.exact - a.whole))) {
    if (left <= 0) break;
    p.whole++;
    left--;
  }
  return Object.fromEntries(parts.map((p) => [p.k, p.whole]));
}

export class ExplorerPanel {
  /**
   * @param {HTMLElement} root the panel (the template's .explorer section)
   * @param {{onPlay: (pit:number)=>void}} opts onPlay plays a move from the position shown
   */
  constructor(root, { onPlay }) {
    this.root = root;
    this.onPlay = onPlay;
    this.position = null;
    this.asked = 0; // each request's number: an answer to an older one is dropped
    this.retry = null;
    this.$ = (sel) => root.querySelector(sel);
    this.$('.explorer-filter').addEventListener('change', () => this.refresh());
    this.$('.explorer-filter').addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.refresh();
    });
    this.$('.explorer-moves').addEventListener('click', (ev) => {
      const b = ev.target.closest('button[data-pit]');
      if (b && !b.disabled) this.onPlay(Number(b.dataset.pit));
    });
  }

  /** The range of ratings chosen, as the API reads it ("1400-1999"), or "" for every rating. */
  ratings() {
    const f = this.$('.explorer-filter').elements;
    const lo = f.min.value.trim();
    const hi = f.max.value.trim();
    if (!lo && !hi) return '';
    return `${lo || 0}-${hi || 9999}`;
  }

  /** Shows what was played from position (null: nothing, the panel hidden). */
  show(position) {
    this.position = position;
    this.root.hidden = !position;
    if (position) this.refresh();
    else this.stop();
  }

  stop() {
    clearTimeout(this.retry);
    this.retry = null;
    this.asked++;
  }

  async refresh(again = false) {
    clearTimeout(this.retry);
    this.retry = null;
    const position = this.position;
    if (!position) return;
    const n = ++this.asked;
    const f = this.$('.explorer-filter').elements;
    const status = this.$('.explorer-status');
    // The last answer stays until the next is drawn: nothing moves under a finger about to press it.
    this.root.dataset.state = 'loading';
    if (!status.textContent) status.textContent = 'Looking up the games…';
    let a;
    try {
      a = await api.explore(position, { category: f.category.value, ratings: this.ratings() });
    } catch (err) {
      if (n !== this.asked) return;
      this.root.dataset.state = 'error';
      this.drawn = null;
      status.textContent = err instanceof api.ApiError ? err.detail : String(err);
      this.$('.explorer-moves').replaceChildren();
      this.$('.explorer-total').textContent = '';
      return;
    }
    if (n !== this.asked) return;
    this.draw(a);
    // The engine had not finished: its scores come with the next answer.
    if (!a.engine && a.moves.length && !again) this.retry = setTimeout(() => this.refresh(true), RETRY_MS);
  }

  draw(a) {
    this.root.dataset.state = 'ready';
    this.root.dataset.position = a.position;
    const mover = this.position.toMove;
    const category = a.category === 'correspondence' ? 'correspondence' : 'live';
    const range = a.ratings.min === 0 && a.ratings.max === 9999 ? 'every rating' : `rated ${a.ratings.min}–${a.ratings.max}`;
    this.$('.explorer-status').textContent = a.games
      ? `${plural(a.games, 'rated game')} (${category}, ${range}) went on from here. ${sideName(mover)} to move.`
      : `No rated game (${category}, ${range}) has reached this position in its first 30 moves.`;
    const total = this.$('.explorer-total');
    total.replaceChildren(...(a.games ? [resultsBar(a, 'All moves')] : []));
    const engine = a.engine ? (a.engine.exact ? 'proven by the endgame table' : `a search to depth ${a.engine.depth}`) : '';
    this.$('.explorer-engine').textContent = a.moves.length
      ? a.engine
        ? `Scores: seeds for ${sideName(mover)} with best play after the move, from ${engine}.`
        : 'The engine is still scoring these moves…'
      : '';
    // The same answer again (a filter set back, scores asked again): the
    // list stays as it is, so a button about to be pressed stays there.
    const same = JSON.stringify(a);
    if (same === this.drawn) return;
    this.drawn = same;
    const items = a.moves.map((m) => {
      const li = document.createElement('li');
      li.dataset.pit = String(m.pit);
      const head = document.createElement('div');
      head.className = 'explorer-move';
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.pit = String(m.pit);
      b.textContent = `Pit ${pitLabel(m.pit)}`;
      b.setAttribute('aria-label', `Play pit ${pitLabel(m.pit)} on the board`);
      const facts = document.createElement('span');
      facts.className = 'explorer-facts';
      const parts = [plural(m.games, 'game'), `avg ${m.averageRating}`];
      if (m.score !== undefined && m.score !== null) parts.push(`engine ${signedScore(m.score)}${m.exact ? ' (proven)' : ''}`);
      facts.textContent = parts.join(' · ');
      if (m.score !== undefined && m.score !== null) {
        facts.dataset.score = String(m.score);
        if (m.exact) facts.dataset.exact = 'true';
      }
      head.append(b, facts);
      li.append(head, resultsBar(m, `Pit ${pitLabel(m.pit)}`));
      if (m.recentGames.length) {
        const recent = document.createElement('p');
        recent.className = 'explorer-recent';
        recent.append('Recent: ');
        m.recentGames.forEach((id, i) => {
          const link = document.createElement('a');
          link.href = `#/game/${encodeURIComponent(id)}`;
          link.textContent = `game ${i + 1}`;
          link.setAttribute('aria-label', `Recent game ${i + 1} with pit ${pitLabel(m.pit)}`);
          if (i) recent.append(', ');
          recent.append(link);
        });
        li.append(recent);
      }
      return li;
    });
    this.$('.explorer-moves').replaceChildren(...items);
  }

  /** Stops asking the server (the page leaves the game). */
  close() {
    this.stop();
  }
}

/** A bar of South's wins, draws and North's wins, with the counts in words for everyone. */
function resultsBar(t, what) {
  const shares = barShares(t.south, t.draws, t.north);
  const bar = document.createElement('div');
  bar.className = 'results-bar';
  bar.setAttribute('role', 'img');
  bar.setAttribute('aria-label', `${what}: South won ${t.south}, ${plural(t.draws, 'draw')}, North won ${t.north}`);
  for (const [key, n, name] of [
    ['south', t.south, 'South'],
    ['draws', t.draws, 'draws'],
    ['north', t.north, 'North'],
  ]) {
    const seg = document.createElement('span');
    seg.className = `seg seg-${key}`;
    seg.dataset.count = String(n);
    seg.style.flexGrow = String(shares[key]);
    seg.title = `${name}: ${n}`;
    // The count is written in its part when there is room; the label says all three.
    seg.textContent = shares[key] >= 15 ? `${shares[key]}%` : '';
    if (!n) seg.hidden = true;
    bar.append(seg);
  }
  return bar;
}
