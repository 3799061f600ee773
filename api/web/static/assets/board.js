// The board: two rows of six pits and the two stores, drawn from a Position
// ({pits[12], captured{south,north}, toMove}), with sowing animated leg by leg
// from the legs the API returns. It knows the layout of a real board and
// nothing of the HTTP API.

export const SIDES = ['south', 'north'];
export const other = (side) => (side === 'south' ? 'north' : 'south');
export const sideName = (side) => (side === 'south' ? 'South' : 'North');
export const ownerOf = (pit) => (pit < 6 ? 'south' : 'north');
export const plural = (n, one, many = one + 's') => `${n} ${n === 1 ? one : many}`;

/**
 * A pit's number as its owner counts it, from their own left: 1-6, the keys
 * that sow it. South's 1 is the API's pit 0, North's 1 is pit 6. The page
 * names pits this way everywhere a player reads them; the API's 0-11 stays
 * in the data.
 */
export const pitLabel = (pit) => (pit % 6) + 1;
/** A pit named with its owner: "North's pit 2". */
export const pitName = (pit) => `${sideName(ownerOf(pit))}'s pit ${pitLabel(pit)}`;

const MAX_DOTS = 18;

// Animation speeds. A move is given a time that grows with its legs, from
// base for one leg by perLeg for each further leg, up to cap: a relay of many
// legs plays faster per seed than a short move, so a move and the AI's reply
// stay a few seconds at most. That time is shared out over its seeds, each
// leg's lift counting as two, within max and min milliseconds per seed; a
// capture pauses twice. reply: the pause between a move and the AI's answer,
// so that the eye sees one end before the other starts.
export const SPEEDS = {
  slow: { base: 1800, perLeg: 450, cap: 6000, max: 220, min: 20, pause: 550, reply: 900 },
  normal: { base: 900, perLeg: 220, cap: 3000, max: 110, min: 10, pause: 300, reply: 500 },
  fast: { base: 300, perLeg: 60, cap: 900, max: 35, min: 4, pause: 100, reply: 200 },
  off: null,
};

/**
 * The pace of a move's animation at a speed: {step} milliseconds per seed
 * (twice that to lift a leg), {pause} twice for a capture, {total} in all;
 * null when animations are off.
 */
export function pace(speedName, move) {
  const speed = SPEEDS[speedName];
  const legs = move.legs?.length || 0;
  if (!speed || !legs) return null;
  const seeds = move.legs.reduce((n, leg) => n + leg.sown.length, 0);
  const budget = Math.min(speed.cap, speed.base + speed.perLeg * (legs - 1));
  const step = Math.max(speed.min, Math.min(speed.max, Math.round(budget / (seeds + 2 * legs))));
  const captures = move.capture && move.capture.seeds > 0;
  return { step, pause: speed.pause, total: step * (seeds + 2 * legs) + (captures ? 2 * speed.pause : 0) };
}

export class Board {
  /**
   * @param {HTMLElement} host where the board is drawn
   * @param {{onPlay?: (pit:number)=>void, label?: string, pageSteps?: boolean}} opts
   *   pageSteps: the page steps through moves with ← → Home End, even from a pit
   */
  constructor(host, opts = {}) {
    this.onPlay = opts.onPlay || (() => {});
    this.pageSteps = !!opts.pageSteps;
    this.bottom = 'south';
    this.legal = new Set();
    this.interactive = false;
    this.position = null;
    this.skipping = false;
    this.wake = null;
    this.speed = 'normal';
    this.focusPit = null;
    this.last = null; // the move last shown: {pit, capture, move, mover}
    this.prev = null; // the other side's move before it: {pit, move, mover}
    this.hint = null; // the engine's verdict on the next move from the position shown: {played, best: [pits]}

    const el = (tag, cls, attrs = {}) => {
      const e = document.createElement(tag);
      if (cls) e.className = cls;
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      return e;
    };
    this.root = el('div', 'board', { role: 'group', 'aria-label': opts.label || 'Board' });
    this.stores = {};
    this.rows = { top: el('div', 'pits pits-top', { role: 'group' }), bottom: el('div', 'pits pits-bottom', { role: 'group' }) };
    const storeEl = (where) => {
      const s = el('div', `store store-${where}`);
      s.append(el('span', 'store-name'), el('span', 'count'), el('span', 'store-seeds', { 'aria-hidden': 'true' }), el('span', 'to-move-badge'));
      return s;
    };
    this.storeTop = storeEl('top');
    this.storeBottom = storeEl('bottom');
    this.pits = [];
    for (let i = 0; i < 12; i++) {
      const b = el('button', 'pit', { type: 'button', 'data-pit': String(i), tabindex: '-1' });
      const seeds = el('span', 'seeds', { 'aria-hidden': 'true' });
      const count = el('span', 'count', { 'aria-hidden': 'true' });
      // The number sits outside the pit, where feedback and the move list
      // send the eye, clear of the seeds and of the highlight ring.
      const no = el('span', 'pit-no', { 'aria-hidden': 'true' });
      no.textContent = String(pitLabel(i));
      b.append(seeds, count, no);
      b.addEventListener('click', () => this.activate(i));
      b.addEventListener('keydown', (ev) => this.onKey(ev, i));
      b.addEventListener('focus', () => this.setFocusPit(i));
      this.pits.push(b);
    }
    this.root.append(this.storeTop, this.rows.top, this.rows.bottom, this.storeBottom);
    // What the board is doing (the leg being sown, the seeds in hand) or last
    // did. Not a live region: the move is announced once, when it is over.
    this.caption = el('p', 'board-caption');
    host.replaceChildren(this.root, this.caption);
    this.layout();
  }

  setCaption(text) {
    this.caption.textContent = text;
  }

  /** Which side's row is drawn at the bottom (the viewer's side). */
  setPerspective(side) {
    if (side !== this.bottom) {
      this.bottom = side;
      this.layout();
      if (this.position) this.draw(this.position.pits, this.position.captured);
    }
  }

  /** Pits of a row in the order they appear left to right. */
  rowPits(where) {
    const south = [0, 1, 2, 3, 4, 5];
    const north = [6, 7, 8, 9, 10, 11];
    if (where === 'bottom') return this.bottom === 'south' ? south : north;
    return (this.bottom === 'south' ? north : south).slice().reverse();
  }

  layout() {
    const top = other(this.bottom);
    this.rows.top.replaceChildren(...this.rowPits('top').map((i) => this.pits[i]));
    this.rows.bottom.replaceChildren(...this.rowPits('bottom').map((i) => this.pits[i]));
    this.rows.top.setAttribute('aria-label', `${sideName(top)}'s row`);
    this.rows.bottom.setAttribute('aria-label', `${sideName(this.bottom)}'s row`);
    this.storeTop.dataset.side = top;
    this.storeBottom.dataset.side = this.bottom;
    this.stores = { [top]: this.storeTop, [this.bottom]: this.storeBottom };
    this.storeTop.querySelector('.store-name').textContent = sideName(top);
    this.storeBottom.querySelector('.store-name').textContent = sideName(this.bottom);
  }

  /**
   * Shows a position. legal: the pits that may be sown now; interactive:
   * whether this viewer may sow them; result: how the game ended, if it did,
   * so that no one is shown to move and the winner's store says so; ended:
   * the game is over without a result (aborted): no one to move either.
   */
  render(position, { legal = [], interactive = false, result = null, ended = false } = {}) {
    this.position = position;
    this.legal = new Set(legal);
    this.interactive = interactive;
    this.draw(position.pits, position.captured);
    const turn = result || ended ? '' : position.toMove;
    this.root.dataset.toMove = turn;
    this.root.dataset.winner = result ? result.winner : '';
    for (const side of SIDES) {
      const s = this.stores[side];
      const won = !!result && result.winner === side;
      s.classList.toggle('to-move', turn === side);
      s.classList.toggle('winner', won);
      let badge = turn === side ? 'to move' : '';
      if (won) badge = 'winner';
      else if (result && result.winner === 'draw') badge = 'draw';
      s.querySelector('.to-move-badge').textContent = badge;
    }
    this.rows.top.classList.toggle('to-move', turn === this.storeTop.dataset.side);
    this.rows.bottom.classList.toggle('to-move', turn === this.storeBottom.dataset.side);
    this.updateTabStops();
  }

  /**
   * Marks a move as the last one played, and previous, the other side's
   * move before it (if any): each side's last pit sown keeps a solid ring,
   * the pit the last move captured another, and the caption says what the
   * last move did, until the next move.
   */
  markLast(move, mover, previous = null) {
    this.last = move ? { pit: move.pit, capture: move.capture && move.capture.seeds > 0 ? move.capture.pit : null, move, mover } : null;
    this.prev = move && previous?.move && previous.mover !== mover ? { pit: previous.move.pit, move: previous.move, mover: previous.mover } : null;
    this.setCaption(move ? `Last move: ${describeMove(move, mover)}` : '');
    if (this.position) this.draw(this.position.pits, this.position.captured);
  }

  /**
   * Draws the engine's verdict on the move played from the position shown
   * (a review): the best move(s) get a dashed ring and a "best" tag, the pit
   * actually played a "played" tag; null clears it.
   */
  showHint(hint) {
    this.hint = hint && { played: hint.played, best: new Set(hint.best || []) };
    if (this.position) this.draw(this.position.pits, this.position.captured);
  }

  /** Draws counts without touching legality: used by render and each animation step. */
  draw(pits, captured) {
    for (let i = 0; i < 12; i++) this.drawPit(i, pits[i]);
    for (const side of SIDES) {
      const s = this.stores[side];
      const n = captured[side];
      s.querySelector('.count').textContent = String(n);
      s.setAttribute('aria-label', `${sideName(side)} has captured ${plural(n, 'seed')}`);
      s.dataset.count = String(n);
      dots(s.querySelector('.store-seeds'), Math.min(n, 48));
    }
  }

  drawPit(i, n) {
    const b = this.pits[i];
    b.dataset.count = String(n);
    b.querySelector('.count').textContent = String(n);
    const seeds = b.querySelector('.seeds');
    dots(seeds, Math.min(n, MAX_DOTS));
    // Fewer seeds are drawn bigger; the style sizes them so they stay clear of the count.
    seeds.dataset.fill = n <= 4 ? 'few' : n <= 9 ? 'some' : 'many';
    const canSow = this.interactive && this.legal.has(i);
    const sownLast = this.last?.pit === i;
    const capturedLast = this.last?.capture === i;
    const sownBefore = this.prev?.pit === i;
    b.classList.toggle('legal', canSow);
    b.classList.toggle('empty', n === 0);
    b.classList.toggle('last-move', sownLast);
    b.classList.toggle('prev-move', sownBefore && !sownLast);
    b.classList.toggle('last-capture', capturedLast);
    b.setAttribute('aria-disabled', canSow ? 'false' : 'true');
    const best = !!this.hint?.best.has(i);
    const played = this.hint?.played === i;
    b.classList.toggle('hint-best', best);
    b.classList.toggle('hint-played', played && !best);
    if (best || played) b.dataset.hint = best && played ? 'best, played' : best ? 'best' : 'played';
    else delete b.dataset.hint;
    let label = `${pitName(i)}, ${plural(n, 'seed')}`;
    if (sownLast) label += ', sown last move';
    else if (sownBefore) label += `, sown by ${sideName(this.prev.mover)} the move before`;
    if (capturedLast) label += ', captured last move';
    if (best) label += played ? ', the best move, and the move played' : ', the best move';
    else if (played) label += ', the move played';
    if (canSow) label += ', can be sown';
    b.setAttribute('aria-label', label);
  }

  /** Keeps exactly one pit in the tab order (roving tabindex): the last focused, else a legal one. */
  updateTabStops() {
    let stop = this.focusPit;
    if (stop === null || (this.interactive && this.legal.size && !this.legal.has(stop))) {
      const mine = this.rowPits('bottom');
      stop = mine.find((p) => this.legal.has(p)) ?? mine[0];
    }
    this.focusPit = stop;
    this.pits.forEach((b, i) => b.setAttribute('tabindex', i === stop ? '0' : '-1'));
  }

  setFocusPit(i) {
    this.focusPit = i;
    this.pits.forEach((b, j) => b.setAttribute('tabindex', j === i ? '0' : '-1'));
  }

  focus() {
    this.pits[this.focusPit ?? this.rowPits('bottom')[0]].focus();
  }

  activate(pit) {
    if (this.interactive && this.legal.has(pit)) this.onPlay(pit);
  }

  /**
   * Sows the mover's nth pit (1-6) counted from the mover's own left, as
   * each player sees their row: South's 1 is pit 0, North's 1 is pit 6.
   */
  activateNth(n) {
    if (!this.position || n < 1 || n > 6) return;
    const pit = (this.position.toMove === 'south' ? 0 : 6) + n - 1;
    this.pits[pit].focus();
    this.activate(pit);
  }

  onKey(ev, pit) {
    // A pit clicked with the mouse leaves the arrows to the page (they step
    // through the moves); one reached with the keyboard moves between pits.
    // On a page with moves to step through, ← → Home End are the page's
    // even then (else ← is swallowed once a pit has focus, as after a digit
    // sowed it): ↑ ↓ move along the row instead.
    if (!ev.currentTarget.matches(':focus-visible')) return;
    const where = this.rowPits('bottom').includes(pit) ? 'bottom' : 'top';
    const row = this.rowPits(where);
    const col = row.indexOf(pit);
    let next = null;
    if (this.pageSteps) {
      if (ev.key === 'ArrowUp') next = row[Math.max(0, col - 1)];
      else if (ev.key === 'ArrowDown') next = row[Math.min(5, col + 1)];
      else return;
      ev.preventDefault();
      this.pits[next].focus();
      return;
    }
    switch (ev.key) {
      case 'ArrowLeft': next = row[Math.max(0, col - 1)]; break;
      case 'ArrowRight': next = row[Math.min(5, col + 1)]; break;
      case 'ArrowUp': next = this.rowPits('top')[col]; break;
      case 'ArrowDown': next = this.rowPits('bottom')[col]; break;
      case 'Home': next = row[0]; break;
      case 'End': next = row[5]; break;
      default: return;
    }
    ev.preventDefault();
    this.pits[next].focus();
  }

  /** Stops the running animation (and any started before settle() is called). */
  skip() {
    this.skipping = true;
    if (this.wake) this.wake();
  }

  /** Ends a batch of animations: the next one plays at full length again. */
  settle() {
    this.skipping = false;
    this.root.classList.remove('animating');
    for (const b of this.pits) b.classList.remove('lifted', 'sown', 'captured', 'landed');
  }

  sleep(ms) {
    if (this.skipping || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(t); this.wake = null; resolve(); };
    });
  }

  /**
   * Plays a move's sowing on the board, seed by seed and leg by leg, then its
   * capture, then shows the position after it and marks the move as the last
   * one. The caption follows it: the leg being sown ("leg 3 of 5") and the
   * seeds still in hand. before: the position the move was played from;
   * move: {pit, legs:[{from, sown}], capture, position, result}.
   * instant: show the position after it at once, marked the same way, with
   * no animation (as at speed "off").
   */
  async animate(before, move, { instant = false } = {}) {
    const timing = pace(this.speed, move);
    const after = move.position;
    const mover = before.toMove;
    // The move shown last becomes the one before this (when the other side's).
    const previous = this.last;
    const done = () => {
      this.last = null;
      this.prev = null;
      this.render(after, { result: move.result });
      this.markLast(move, mover, previous);
    };
    if (!timing || this.skipping || instant) {
      done();
      return;
    }
    this.interactive = false;
    this.last = null;
    this.prev = null;
    this.root.classList.add('animating');
    const pits = before.pits.slice();
    const captured = { ...before.captured };
    const { step } = timing;
    const who = `${sideName(mover)} sows pit ${pitLabel(move.pit)}`;
    const legs = move.legs.length;
    const progress = (leg, inHand) => {
      const parts = [who];
      if (legs > 1) parts.push(`leg ${leg} of ${legs}`);
      parts.push(`${plural(inHand, 'seed')} in hand`);
      this.setCaption(parts.join(' · '));
    };
    this.legal = new Set();
    this.draw(pits, captured);
    for (const [k, leg] of move.legs.entries()) {
      if (this.skipping) break;
      const origin = this.pits[leg.from];
      origin.classList.add('lifted');
      let inHand = leg.sown.length;
      pits[leg.from] = 0;
      this.drawPit(leg.from, 0);
      progress(k + 1, inHand);
      await this.sleep(step * 2);
      for (const p of leg.sown) {
        if (this.skipping) break;
        pits[p] += 1;
        this.drawPit(p, pits[p]);
        const b = this.pits[p];
        b.classList.remove('sown');
        void b.offsetWidth; // restart the flash on a pit sown twice in a row
        b.classList.add('sown');
        progress(k + 1, --inHand);
        await this.sleep(step);
      }
      origin.classList.remove('lifted');
    }
    if (!this.skipping && move.capture && move.capture.seeds > 0) {
      const lastLeg = move.legs[move.legs.length - 1];
      const landed = lastLeg.sown[lastLeg.sown.length - 1];
      this.pits[landed].classList.add('landed');
      this.pits[move.capture.pit].classList.add('captured');
      this.setCaption(`${sideName(mover)} captures ${plural(move.capture.seeds, 'seed')} from ${pitName(move.capture.pit)}`);
      await this.sleep(timing.pause);
      pits[move.capture.pit] = 0;
      captured[mover] += move.capture.seeds;
      if (after.pits[landed] === 0) pits[landed] = 0;
      this.draw(pits, captured);
      this.stores[mover].classList.add('gained');
      await this.sleep(timing.pause);
      this.stores[mover].classList.remove('gained');
    }
    for (const b of this.pits) b.classList.remove('sown', 'captured', 'landed', 'lifted');
    this.root.classList.remove('animating');
    done();
  }
}

// Draws up to n seeds as dots; counts are always shown as a number too.
function dots(host, n) {
  if (host.childElementCount === n) return;
  while (host.childElementCount > n) host.lastElementChild.remove();
  while (host.childElementCount < n) host.append(document.createElement('i'));
}

/** One sentence for screen readers and the move list. */
export function describeMove(move, mover) {
  const legs = move.legs?.length || 0;
  const sown = (move.legs || []).reduce((n, leg) => n + leg.sown.length, 0);
  let s = `${sideName(mover)} sowed pit ${pitLabel(move.pit)}`;
  if (legs) s += `: ${plural(legs, 'leg')}, ${plural(sown, 'seed')} sown`;
  if (move.capture && move.capture.seeds > 0) s += `, captured ${plural(move.capture.seeds, 'seed')} from ${pitName(move.capture.pit)}`;
  return s + '.';
}

/**
 * A move in a few characters, for the move list: the pit as its owner counts
 * it, then what it captured ("3 ×7").
 */
export function shortMove(move) {
  const taken = move.capture && move.capture.seeds > 0 ? ` ×${move.capture.seeds}` : '';
  return `${pitLabel(move.pit)}${taken}`;
}

/** The pause before the AI's reply is played, at a speed (0 when animations are off). */
export function replyPause(speedName) {
  return SPEEDS[speedName]?.reply || 0;
}

// Why a game ended, in a few words.
export const REASONS = {
  majority: 'a majority of the seeds',
  no_moves: 'no moves left',
  repetition: 'the position repeated three times',
  resignation: 'resignation',
  timeout: 'timeout',
  agreement: 'agreed by both players',
};

/**
 * The result in words, read from the winner's side: "North wins 29–7 (a
 * majority of the seeds)." When the winner has fewer seeds (they won by
 * resignation or on time), both sides are named: "North wins by
 * resignation: North 3 – South 10."
 */
export function describeResult(result, position) {
  if (!result) return '';
  const w = result.winner;
  const l = other(w);
  let why = REASONS[result.reason] || String(result.reason).replace(/_/g, ' ');
  if (result.reason === 'timeout' && w !== 'draw') why = `${sideName(l)} ran out of time`;
  const c = position?.captured;
  if (w === 'draw') return c ? `Draw ${c.south}–${c.north} (${why}).` : `Draw (${why}).`;
  if (!c) return `${sideName(w)} wins (${why}).`;
  if (c[w] >= c[l]) return `${sideName(w)} wins ${c[w]}–${c[l]} (${why}).`;
  const by = result.reason === 'timeout' ? 'on time' : `by ${why}`;
  return `${sideName(w)} wins ${by}: ${sideName(w)} ${c[w]} – ${sideName(l)} ${c[l]}.`;
}

/** Who won, in two words for the line under the board: "North won", "a draw". */
export function resultShort(result) {
  if (!result) return '';
  return result.winner === 'draw' ? 'a draw' : `${sideName(result.winner)} won`;
}
