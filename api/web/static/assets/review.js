// The engine's review of a finished game as the page draws it: the score
// graph over the plies and the mistakes to step through. The review itself
// comes from the API (api.js: requestReview, getReview); the move list's marks and
// the board's best move are drawn by game.js and board.js.

import { pitLabel, sideName } from './board.js';
import { signedScore } from './explorer.js';

/** The classes stepped through by "Next mistake": a mistake or worse. */
export const MISTAKES = new Set(['mistake', 'blunder']);

/**
 * Each ply's score before it was played, from South's side (a review gives
 * it for the side that moved): [{ply, side, score, exact, class}], in ply
 * order. Positive: South ahead by that many seeds with best play.
 */
export function southScores(plies) {
  return plies.map((r) => ({
    ply: r.ply,
    side: r.side,
    score: r.side === 'south' ? r.scoreBefore : -r.scoreBefore,
    exact: !!r.exactBefore,
    class: r.class,
  }));
}

/** The plies (1 for the first move) of the mistakes and blunders, in order. */
export function mistakePlies(plies) {
  return plies.filter((r) => MISTAKES.has(r.class)).map((r) => r.ply);
}

/**
 * The mistake to step to from ply `at` (the move the board shows the
 * verdict of; 0 or less before the first, past the last at the end):
 * the first after it ('next') or the last before it ('prev'), or null.
 */
export function stepMistake(list, at, dir) {
  if (dir === 'next') return list.find((p) => p > at) ?? null;
  return list.findLast((p) => p < at) ?? null;
}

/** The review of one ply in words, for the line under the graph. */
export function plyWords(r) {
  const lost = r.loss ? `, ${r.loss} seed${r.loss === 1 ? '' : 's'} lost` : '';
  const mark = r.mark ? `, ${r.mark.replace('_', ' ')}` : '';
  const best = r.best.map((p) => pitLabel(p)).join(' or ');
  const proven = r.exactBefore ? ' (proven)' : '';
  return `Move ${r.ply}, ${sideName(r.side)}: pit ${pitLabel(r.pit)} played, ${r.class}${lost}${mark}; best: pit ${best}. ` +
    `Score before it: ${signedScore(r.scoreBefore)} for ${sideName(r.side)}${proven}.`;
}

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
};

/**
 * The score graph: a dot a ply at its score before the move (South's side),
 * joined by a line, with the zero line; current (a ply, or null) is ringed.
 * Dots carry data-ply, data-score, data-exact and data-class.
 */
export function scoreGraph(plies, current) {
  const points = southScores(plies);
  const W = 600;
  const H = 160;
  const pad = 10;
  const span = Math.max(4, ...points.map((p) => Math.abs(p.score)));
  const x = (i) => pad + (points.length > 1 ? (i * (W - 2 * pad)) / (points.length - 1) : (W - 2 * pad) / 2);
  const y = (s) => H / 2 - (s * (H / 2 - pad)) / span;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'graph', role: 'img' });
  const mistakes = points.filter((p) => MISTAKES.has(p.class)).length;
  root.setAttribute('aria-label', `The score before each of the ${points.length} moves, from South's side: ` +
    `from ${signedScore(points[0]?.score ?? 0)} to ${signedScore(points.at(-1)?.score ?? 0)}, ` +
    `between ${signedScore(Math.min(...points.map((p) => p.score), 0))} and ${signedScore(Math.max(...points.map((p) => p.score), 0))}; ` +
    `${mistakes} mistake${mistakes === 1 ? '' : 's'} or blunder${mistakes === 1 ? '' : 's'}.`);
  root.append(
    svg('rect', { x: 0, y: 0, width: W, height: H / 2, class: 'graph-south' }),
    svg('rect', { x: 0, y: H / 2, width: W, height: H / 2, class: 'graph-north' }),
    svg('line', { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: 'graph-zero' }),
  );
  const top = svg('text', { x: 4, y: 12, class: 'graph-label' });
  top.textContent = `South +${span}`;
  const bottom = svg('text', { x: 4, y: H - 4, class: 'graph-label' });
  bottom.textContent = `North +${span}`;
  root.append(top, bottom);
  if (points.length > 1) {
    root.append(svg('polyline', { points: points.map((p, i) => `${x(i)},${y(p.score)}`).join(' '), class: 'graph-line' }));
  }
  points.forEach((p, i) => {
    if (p.ply === current) root.append(svg('line', { x1: x(i), x2: x(i), y1: 0, y2: H, class: 'graph-current' }));
    const dot = svg('circle', { cx: x(i), cy: y(p.score), r: MISTAKES.has(p.class) ? 5 : 3.5, class: 'graph-dot' });
    dot.dataset.ply = String(p.ply);
    dot.dataset.score = String(p.score);
    dot.dataset.exact = String(p.exact);
    dot.dataset.class = p.class;
    const title = svg('title');
    title.textContent = `Move ${p.ply} (${sideName(p.side)}): ${signedScore(p.score)} for South before it${p.exact ? ', proven' : ''}; ${p.class}`;
    dot.append(title);
    root.append(dot);
  });
  return root;
}
