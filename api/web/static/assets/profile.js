// A player's profile: the name (this browser's player may rename it), the
// ratings per category, the record, the daily streak, a chart of the ratings
// over time and the last games and puzzles; and the leaderboards, one tab per
// category.

import * as api from './api.js';
import * as saved from './store.js';
import * as player from './player.js';
import { plural } from './board.js';
import { CATEGORY_NAMES, ratingText, signed, ratingSeries, drawRatingChart, chartLegend } from './ratings.js';
import { SEEK_PRESETS } from './lobby.js';
import { timeControlName } from './game.js';
import { tabList } from './tabs.js';
import { DECLINE_WORDS, challengeTerms } from './challenges.js';

/** The time a challenge from a profile offers first: the lobby's quick pairing's. */
const CHALLENGE_DEFAULT = '5+3';

// The chart reads this many of the newest results of each history.
const HISTORY_PAGES = 3;
const PAGE = 100;
// The lists show this many of the newest.
const LAST = 10;

const RESULT_WORDS = { win: 'Won', loss: 'Lost', draw: 'Drew' };

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

function link(href, text, className = '') {
  return el('a', { href, textContent: text, className });
}

function delta(change) {
  const s = el('span', { className: 'rating-delta', textContent: signed(change) });
  s.dataset.sign = String(Math.sign(change));
  return s;
}

/** Every page of a history up to HISTORY_PAGES, newest first; page(after) answers {items, next}. */
async function pages(page) {
  const out = [];
  let after;
  for (let i = 0; i < HISTORY_PAGES; i++) {
    const { items, next } = await page(after);
    out.push(...items);
    if (!next) break;
    after = next;
  }
  return out;
}

export class ProfileView {
  /** app.challenges, if any, is told of a challenge sent from here (challenges.js). */
  constructor(root, app = {}) {
    this.root = root;
    this.app = app;
    this.closed = false;
    this.$ = (sel) => root.querySelector(sel);
    this.$('.rename').addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.rename();
    });
    const time = this.$('.challenge select[name=time]');
    time.replaceChildren(...Object.entries(SEEK_PRESETS).map(([key, tc]) => el('option', { value: key, textContent: timeControlName(tc), selected: key === CHALLENGE_DEFAULT })));
    this.$('.challenge').addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.challenge();
    });
  }

  /** Challenges the player shown, with the form's time control and rated switch. */
  async challenge() {
    const form = this.$('.challenge');
    const status = this.$('.challenge-status');
    const button = form.querySelector('button');
    button.disabled = true;
    status.classList.remove('problem');
    try {
      const timeControl = SEEK_PRESETS[form.elements.time.value];
      const c = await api.createChallenge({ to: this.player.id, timeControl, rated: form.elements.rated.checked });
      this.app.challenges?.sent(c);
      status.textContent = `Challenge sent: ${timeControlName(timeControl)}, ${c.rated ? 'rated' : 'casual'}. The game opens when ${this.player.name} accepts.`;
      status.dataset.challenge = c.id;
      status.dataset.state = 'pending';
      // The words follow the challenge: declined, withdrawn or expired.
      if (!this.stopEvents && !this.closed) this.stopEvents = api.followPlayer((ev) => this.onEvent(ev));
    } catch (err) {
      status.textContent = err instanceof api.ApiError ? err.detail : String(err);
      status.classList.add('problem');
    }
    button.disabled = false;
  }

  /** A challenge sent from here that ends otherwise than in a game: the status says so. */
  onEvent({ type, data }) {
    const c = data?.challenge;
    const status = this.$('.challenge-status');
    if (!c?.id || c.id !== status.dataset.challenge || status.dataset.state !== 'pending') return;
    const who = this.player?.name || 'The player';
    if (type === 'challengeDeclined') {
      const reason = DECLINE_WORDS[data.reason || c.reason] || DECLINE_WORDS.generic;
      status.textContent = `${who} declined your ${challengeTerms(c)} challenge: “${reason}”.`;
      status.dataset.state = 'declined';
    } else if (type === 'challengeCanceled') {
      const expired = c.status === 'expired';
      status.textContent = expired ? `Your ${challengeTerms(c)} challenge to ${who} expired.` : `You withdrew your ${challengeTerms(c)} challenge to ${who}.`;
      status.dataset.state = expired ? 'expired' : 'canceled';
    }
  }

  close() {
    this.closed = true;
    if (this.stopEvents) this.stopEvents();
    this.stopEvents = null;
  }

  /** Shows player id's profile; none: this browser's player, made first if need be. */
  async start(id) {
    let mine = saved.player();
    if (!id || id === mine?.id) {
      mine = await player.mine();
      if (!mine) throw new api.ApiError(503, { detail: 'The server made no player for this browser just now. Try again in a little while.' });
      id = mine.id;
    }
    this.own = id === mine?.id;
    // Another player's profile: this browser's player, made now on a first
    // visit, may challenge them.
    if (!this.own && !mine) mine = await player.mine();
    if (this.closed) return;
    this.$('.challenge').hidden = this.own || !mine;
    this.root.dataset.state = 'busy';
    let p;
    try {
      p = await api.getPlayer(id);
    } catch (err) {
      // This browser's player is gone (deleted, or another database): a
      // fresh one takes its place, as quietly as the first.
      if (!this.own || !(err instanceof api.ApiError) || err.status !== 404) throw err;
      await player.renew(mine.token);
      mine = saved.player();
      if (!mine) throw err;
      id = mine.id;
      p = await api.getPlayer(id);
    }
    if (this.closed) return;
    this.player = p;
    this.root.dataset.playerId = p.id;
    this.root.dataset.own = String(this.own);
    this.drawPlayer(p);
    const [games, attempts] = await Promise.all([
      pages(async (after) => {
        const r = await api.playerGames(id, { after, limit: PAGE });
        return { items: r.games, next: r.next };
      }),
      pages(async (after) => {
        const r = await api.playerPuzzles(id, { after, limit: PAGE });
        return { items: r.attempts, next: r.next };
      }),
    ]);
    if (this.closed) return;
    this.drawHistory(games, attempts);
    this.root.dataset.state = 'ready';
  }

  drawPlayer(p) {
    this.$('.player-name').textContent = this.own ? `${p.name} (you)` : p.name;
    document.title = `${p.name} · Ayoayo`;
    const form = this.$('.rename');
    form.hidden = !this.own;
    if (this.own && document.activeElement !== form.elements.name) form.elements.name.value = p.name;
    const since = p.createdAt ? new Date(p.createdAt).toISOString().slice(0, 10) : '';
    this.$('.player-since').textContent = since ? `Playing here since ${since}.` : '';

    this.$('.ratings tbody').replaceChildren(
      ...api.CATEGORIES.map((c) => {
        const r = p.ratings[c];
        const tr = el('tr');
        tr.dataset.category = c;
        const value = el('td', { className: 'rating', textContent: ratingText(r) });
        if (r.provisional && r.rating !== null) value.title = 'Provisional: too few results yet';
        tr.append(el('th', { scope: 'row', textContent: CATEGORY_NAMES[c] }), value, el('td', { className: 'games', textContent: String(r.games ?? 0) }));
        return tr;
      }),
    );

    const c = p.counts;
    const facts = [
      ['Games', c.games ?? 0, 'games'],
      ['Won · lost · drawn', `${c.wins ?? 0} · ${c.losses ?? 0} · ${c.draws ?? 0}`, 'results'],
      ['Rated games', c.rated ?? 0, 'rated'],
      ['Puzzles tried', c.puzzles ?? 0, 'puzzles'],
      ['Solved at the first try', c.solved ?? 0, 'solved'],
      ['Daily streak', plural(p.streak, 'day'), 'streak'],
    ];
    this.$('.counts').replaceChildren(
      ...facts.flatMap(([name, value, key]) => {
        const dd = el('dd', { textContent: String(value) });
        dd.dataset.count = key;
        return [el('dt', { textContent: name }), dd];
      }),
    );
  }

  drawHistory(games, attempts) {
    const series = ratingSeries(games, attempts);
    const points = drawRatingChart(this.$('.chart-host'), series);
    this.$('.chart-legend').replaceChildren(...chartLegend(series));
    this.$('.chart-legend').hidden = !points;
    this.root.dataset.chartPoints = String(points);

    const gameList = this.$('.last-games');
    gameList.replaceChildren(...games.slice(0, LAST).map((g) => this.gameItem(g)));
    if (!games.length) gameList.append(el('li', { className: 'muted', textContent: 'No finished games yet.' }));
    const puzzleList = this.$('.last-puzzles');
    puzzleList.replaceChildren(...attempts.slice(0, LAST).map((a) => puzzleItem(a)));
    if (!attempts.length) puzzleList.append(el('li', { className: 'muted', textContent: 'No puzzles tried yet.' }));
  }

  /** "Won against Bo · Live, rated +12 · 2026-12-01", the result a link to the game. */
  gameItem(g) {
    const li = el('li');
    li.dataset.gameId = g.gameId;
    li.append(link(`#/game/${encodeURIComponent(g.gameId)}`, RESULT_WORDS[g.result] || g.result), ' against ');
    if (g.ai) li.append('the AI');
    else if (g.opponent) li.append(link(`#/player/${encodeURIComponent(g.opponent.id)}`, g.opponent.name));
    else li.append('someone without a player');
    li.append(` · ${g.category ? CATEGORY_NAMES[g.category] : 'untimed'}`);
    if (g.rated) li.append(', rated');
    if (g.rating) li.append(' ', delta(g.rating.change));
    if (g.endedAt) li.append(` · ${g.endedAt.slice(0, 10)}`);
    return li;
  }

  async rename() {
    const form = this.$('.rename');
    const status = this.$('.rename-status');
    const name = form.elements.name.value.trim();
    const mine = saved.player();
    if (!name || !mine || name === this.player.name) return;
    const button = form.querySelector('button');
    button.disabled = true;
    status.classList.remove('problem');
    try {
      this.player = await api.renamePlayer(mine.id, mine.token, name);
      this.drawPlayer(this.player);
      status.textContent = `Renamed: you are ${this.player.name}.`;
    } catch (err) {
      status.classList.add('problem');
      if (err instanceof api.ApiError && err.code === 'player_unauthorized') {
        status.textContent = 'The server no longer knows this browser’s player. A new one is made; rename it again.';
        await player.renew(mine.token);
        await this.start();
      } else {
        status.textContent = err instanceof api.ApiError ? err.detail : String(err);
      }
    } finally {
      button.disabled = false;
    }
  }
}

/** "Daily puzzle 2026-12-01 · solved · +12", a link to the puzzle. */
function puzzleItem(a) {
  const li = el('li');
  li.dataset.puzzleId = a.puzzleId;
  const href = a.daily ? `#/puzzle/${a.daily}` : `#/practice/${encodeURIComponent(a.puzzleId)}`;
  li.append(link(href, a.daily ? `Daily puzzle ${a.daily}` : 'Practice puzzle'), ` · ${a.solved ? 'solved ✓' : 'not solved'}`);
  if (a.rating) li.append(' · ', delta(a.rating.change));
  if (!a.daily && a.at) li.append(` · ${a.at.slice(0, 10)}`);
  return li;
}

export class LeaderboardView {
  constructor(root) {
    this.root = root;
    this.closed = false;
    this.$ = (sel) => root.querySelector(sel);
    this.tabs = [...root.querySelectorAll('[role="tab"]')];
    tabList(this.tabs, 'category', (value) => this.select(value));
  }

  close() {
    this.closed = true;
  }

  async start(category) {
    await this.select(api.CATEGORIES.includes(category) ? category : 'live', false);
  }

  /** Shows category's leaderboard; the address follows, without a new history entry. */
  async select(category, follow = true) {
    this.category = category;
    for (const tab of this.tabs) {
      const on = tab.dataset.category === category;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    const panel = this.$('[role="tabpanel"]');
    panel.setAttribute('aria-labelledby', `tab-${category}`);
    if (follow) history.replaceState(null, '', `#/leaderboard/${category}`);
    document.title = `Leaderboard · ${CATEGORY_NAMES[category]} · Ayoayo`;
    this.root.dataset.state = 'busy';
    const status = this.$('.empty');
    status.classList.remove('problem');
    let leaders;
    try {
      leaders = await api.leaderboard(category);
    } catch (err) {
      if (this.closed || this.category !== category) return;
      this.$('.leaders tbody').replaceChildren();
      this.$('.leaders').hidden = true;
      status.textContent = err instanceof api.ApiError ? err.detail : String(err);
      status.classList.add('problem');
      this.root.dataset.state = 'ready';
      return;
    }
    if (this.closed || this.category !== category) return;
    const mine = saved.player()?.id;
    this.$('.leaders tbody').replaceChildren(
      ...leaders.map((p) => {
        const tr = el('tr');
        tr.dataset.playerId = p.id;
        const name = el('td', {}, link(`#/player/${encodeURIComponent(p.id)}`, p.name));
        if (p.id === mine) {
          tr.className = 'me';
          name.append(' (you)');
        }
        tr.append(el('td', { className: 'rank', textContent: String(p.rank) }), name, el('td', { className: 'rating', textContent: String(Math.round(p.rating)) }), el('td', { className: 'games', textContent: String(p.games) }));
        return tr;
      }),
    );
    this.$('.leaders').hidden = !leaders.length;
    status.textContent = leaders.length ? '' : 'No settled ratings here yet.';
    const own = leaders.length && leaders.some((p) => p.id === mine) ? '' : await this.ownStanding(category, !leaders.length);
    if (this.closed || this.category !== category) return;
    if (own) status.textContent = `${status.textContent} ${own}`.trim();
    this.root.dataset.state = 'ready';
  }

  /**
   * Why this browser's player is not on category's board, in words: the
   * board lists only settled ratings, so players who have played but whose
   * ratings are still provisional are not "nobody". empty: the board has
   * no one, so say why it can be empty. Answers '' when there is nothing
   * to say (no player here, or one the server cannot show).
   */
  async ownStanding(category, empty) {
    const why = empty ? 'A rating is listed once it is no longer provisional (shown with “?” until there are enough results to be sure of it). ' : '';
    const what = category === 'puzzle' ? 'try a puzzle' : 'finish a rated game';
    const mine = saved.player()?.id;
    if (!mine) return empty ? `${why}${capitalize(what)} to start yours.` : '';
    let r;
    try {
      r = (await api.getPlayer(mine)).ratings[category];
    } catch {
      return why.trim(); // the board stands without it
    }
    if (!r.games) return `${why}${capitalize(what)} to start yours.`;
    const results = category === 'puzzle' ? plural(r.games, 'puzzle') : plural(r.games, 'rated game');
    if (r.provisional) return `${why}Yours, ${ratingText(r)} after ${results}, is still provisional: a few more results settle it.`;
    // Settled and off a full board: below the top 100, nothing to explain.
    return empty ? `${why}Yours, ${ratingText(r)}, has not changed in the last 30 days.` : '';
  }
}

const capitalize = (s) => s.charAt(0).toUpperCase() + s.slice(1);
