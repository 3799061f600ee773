// Ratings in words and in a picture: a rating as players read it ("1500?"
// while provisional), a change as "+12" or "−8", and the chart of a
// player's ratings over time, drawn as inline SVG from the histories the
// API returns (no chart library: a few lines and labels).

/** The categories' names, as pages show them. */
export const CATEGORY_NAMES = { live: 'Live', correspondence: 'Correspondence', puzzle: 'Puzzles' };

/** A rating ({rating, provisional}) as shown: "1500?" while provisional, "—" for none. */
export function ratingText(r) {
  if (!r || r.rating === null || r.rating === undefined) return '—';
  return `${r.rating}${r.provisional ? '?' : ''}`;
}

/** A change of rating with its sign: "+12", "−8" (a minus sign, not a hyphen), "±0". */
export function signed(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return '±0';
}

const SVG_NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * Points of the chart from a player's histories, newest first as the API
 * answers them: for each category, the rating after each rated game (games:
 * [PlayerGame]) or first attempt at a puzzle (attempts: [PlayerPuzzle]),
 * oldest first, as {t: ms, rating, id}.
 */
export function ratingSeries(games, attempts) {
  const series = { live: [], correspondence: [], puzzle: [] };
  // Read oldest first: results within one millisecond (the API's times
  // have microseconds, Date's do not) keep their order through the sort.
  for (const g of [...games].reverse()) {
    if (g.rating && series[g.category]) series[g.category].push({ t: Date.parse(g.endedAt), rating: g.rating.after, id: g.gameId });
  }
  for (const a of [...attempts].reverse()) {
    if (a.rating) series.puzzle.push({ t: Date.parse(a.at), rating: a.rating.after, id: a.puzzleId });
  }
  for (const s of Object.values(series)) s.sort((a, b) => a.t - b.t);
  return series;
}

/**
 * The rating axis for values from lo to hi: gridlines at a round step, at
 * most six spans of it, from the step at or below lo to the one at or above
 * hi, so that the axis covers every value and the chart spans exactly the
 * axis (gridlines drawn only inside the data's range left the highest and
 * lowest points outside it). Values closer than 40 (a lone point) are given
 * 40 around them. Answers {lo, hi, ticks}.
 */
export function ratingAxis(lo, hi) {
  if (hi - lo < 40) {
    const mid = (lo + hi) / 2;
    lo = mid - 20;
    hi = mid + 20;
  }
  const steps = [10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000];
  const step = steps.find((s) => Math.ceil(hi / s) - Math.floor(lo / s) <= 6) || steps[steps.length - 1];
  const from = Math.floor(lo / step) * step;
  const to = Math.ceil(hi / step) * step;
  const ticks = [];
  for (let v = from; v <= to; v += step) ticks.push(v);
  return { lo: from, hi: to, ticks };
}

const day = (t) => new Date(t).toISOString().slice(0, 10);

/**
 * Draws series (see ratingSeries) into host as an SVG line chart: one line
 * per category with a point for each result (its tooltip says when and
 * what), the ratings on the left, the first and last days below. Answers
 * the number of points drawn; with none, host says so in words instead.
 */
export function drawRatingChart(host, series) {
  const lines = Object.entries(series).filter(([, pts]) => pts.length);
  const all = lines.flatMap(([, pts]) => pts);
  if (!all.length) {
    const p = document.createElement('p');
    p.className = 'muted chart-empty';
    p.textContent = 'No rated games or puzzles yet: the chart of the ratings starts with the first.';
    host.replaceChildren(p);
    return 0;
  }
  const W = 640;
  const H = 240;
  const pad = { left: 48, right: 14, top: 12, bottom: 28 };
  const axis = ratingAxis(Math.min(...all.map((p) => p.rating)), Math.max(...all.map((p) => p.rating)));
  const { lo, hi } = axis;
  const t0 = Math.min(...all.map((p) => p.t));
  const t1 = Math.max(...all.map((p) => p.t));
  const x = (t) => (t1 === t0 ? (pad.left + W - pad.right) / 2 : pad.left + ((t - t0) / (t1 - t0)) * (W - pad.left - pad.right));
  const y = (r) => pad.top + ((hi - r) / (hi - lo)) * (H - pad.top - pad.bottom);
  const round = (v) => Math.round(v * 10) / 10;

  const titleId = `chart-title-${Math.random().toString(36).slice(2, 8)}`;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rating-chart', role: 'img', 'aria-labelledby': `${titleId} ${titleId}-desc` });
  root.append(svg('title', { id: titleId }, 'Ratings over time'));
  const summary = lines.map(([c, pts]) => `${CATEGORY_NAMES[c]}: ${pts.length === 1 ? `${pts[0].rating} after one result` : `from ${pts[0].rating} to ${pts[pts.length - 1].rating} over ${pts.length} results`}`);
  root.append(svg('desc', { id: `${titleId}-desc` }, `${summary.join('; ')}; from ${day(t0)} to ${day(t1)}.`));

  const grid = svg('g', { class: 'chart-grid', 'aria-hidden': 'true' });
  for (const v of axis.ticks) {
    grid.append(svg('line', { x1: pad.left, x2: W - pad.right, y1: round(y(v)), y2: round(y(v)) }));
    grid.append(svg('text', { x: pad.left - 6, y: round(y(v)) + 4, 'text-anchor': 'end' }, String(v)));
  }
  // Results all at one time are drawn mid-way: their day goes under them.
  if (t1 === t0) grid.append(svg('text', { x: round(x(t0)), y: H - 8, 'text-anchor': 'middle' }, day(t0)));
  else grid.append(svg('text', { x: pad.left, y: H - 8, 'text-anchor': 'start' }, day(t0)));
  if (day(t1) !== day(t0)) grid.append(svg('text', { x: W - pad.right, y: H - 8, 'text-anchor': 'end' }, day(t1)));
  root.append(grid);

  for (const [category, pts] of lines) {
    const g = svg('g', { class: `chart-line line-${category}`, 'data-category': category });
    if (pts.length > 1) g.append(svg('polyline', { points: pts.map((p) => `${round(x(p.t))},${round(y(p.rating))}`).join(' '), fill: 'none' }));
    for (const p of pts) {
      const dot = svg('circle', { cx: round(x(p.t)), cy: round(y(p.rating)), r: 3.5 });
      dot.append(svg('title', {}, `${CATEGORY_NAMES[category]} ${p.rating}, ${day(p.t)}`));
      g.append(dot);
    }
    root.append(g);
  }
  host.replaceChildren(root);
  return all.length;
}

/** The chart's legend: a swatch and a name for each category drawn. */
export function chartLegend(series) {
  return Object.entries(series)
    .filter(([, pts]) => pts.length)
    .map(([category]) => {
      const item = document.createElement('span');
      item.className = `legend-item line-${category}`;
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.setAttribute('aria-hidden', 'true');
      item.append(swatch, CATEGORY_NAMES[category]);
      return item;
    });
}
