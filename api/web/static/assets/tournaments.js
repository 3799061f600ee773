// Tournaments: the list of events (running, upcoming, finished) with a form
// to create one, an event's page with its standings kept live by the
// event's stream and Join and Withdraw for this browser's player, and,
// wherever the player is, its next tournament game opening by itself when
// the player's stream says `tournamentGame` (as the lobby opens a game for
// `gameStart`): the seat is the player's, acted for by its Player-Token
// (api.PLAYER_SEAT).

import * as api from './api.js';
import * as saved from './store.js';
import * as player from './player.js';
import { timeControlName } from './game.js';
import { SEEK_PRESETS } from './lobby.js';
import { tabList } from './tabs.js';

/** The clocks an event may be created with: the lobby's clock presets. */
const CLOCKS = Object.entries(SEEK_PRESETS).filter(([, tc]) => tc.kind === 'clock');
const DEFAULT_CLOCK = '3+2';

const STATUS_WORDS = { upcoming: 'Upcoming', running: 'Running', finished: 'Finished' };

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

const problemText = (err) => (err instanceof api.ApiError ? err.detail : String(err));

/** An instant as the reader's clock shows it: "7 Dec, 18:00". */
function when(iso) {
  return new Date(iso).toLocaleString([], { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

/** A span of time to come, in words: "42 s", "12:05", "3 h 20 min", "2 days". */
export function span(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} days`;
}

/** An event's terms in words: "Arena · 3+2 clock · rated · 30 min · berserk allowed". */
export function terms(t) {
  const parts = [t.kind === 'arena' ? 'Arena' : 'Swiss', timeControlName(t.timeControl), t.rated ? 'rated' : 'casual'];
  if (t.kind === 'arena') {
    parts.push(`${t.minutes} min`);
    if (t.berserk) parts.push('berserk allowed');
  } else {
    parts.push(`${t.rounds} round${t.rounds === 1 ? '' : 's'}`);
  }
  return parts.join(' · ');
}

/** When an event starts, runs or ran, from now. */
function timing(t, now = Date.now()) {
  const start = Date.parse(t.startsAt);
  if (t.status === 'upcoming') return start > now ? `Starts in ${span(start - now)} (${when(t.startsAt)})` : 'Starting…';
  if (t.status === 'finished') return `Finished ${when(t.finishedAt || t.endsAt || t.startsAt)}`;
  if (t.kind === 'arena') {
    const end = Date.parse(t.endsAt);
    return end > now ? `Ends in ${span(end - now)} (${when(t.endsAt)})` : 'Ended: the last games are being played';
  }
  return t.round ? `Round ${t.round} of ${t.rounds}` : 'Pairing round 1…';
}

// ---- The list ----

export class TournamentListView {
  constructor(root) {
    this.root = root;
    this.closed = false;
    this.$ = (sel) => root.querySelector(sel);
    this.tabs = [...root.querySelectorAll('[role="tab"]')];
    tabList(this.tabs, 'status', (value) => this.select(value));
    this.$('.more').addEventListener('click', () => this.load(this.next));
    this.setUpForm();
  }

  close() {
    this.closed = true;
  }

  async start(status) {
    await this.select(api.TOURNAMENT_STATUSES.includes(status) ? status : 'running', false);
  }

  /** Shows the events of status; the address follows, without a new history entry. */
  async select(status, follow = true) {
    this.status = status;
    for (const tab of this.tabs) {
      const on = tab.dataset.status === status;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    this.$('[role="tabpanel"]').setAttribute('aria-labelledby', `tab-${status}`);
    if (follow) history.replaceState(null, '', `#/tournaments/${status}`);
    document.title = `Tournaments · ${STATUS_WORDS[status]} · Ayoayo`;
    this.$('.tournament-list').replaceChildren();
    await this.load(null);
  }

  /** Appends the page of events after `after` (null: the first page). */
  async load(after) {
    const status = this.status;
    const line = this.$('.empty');
    line.classList.remove('problem');
    this.root.dataset.state = 'busy';
    let page;
    try {
      page = await api.tournaments(status, after);
    } catch (err) {
      if (this.closed || this.status !== status) return;
      line.textContent = problemText(err);
      line.classList.add('problem');
      this.root.dataset.state = 'ready';
      return;
    }
    if (this.closed || this.status !== status) return;
    this.next = page.next;
    this.$('.tournament-list').append(...page.tournaments.map(({ tournament: t, players }) => {
      const li = el('li', { className: 'tournament-item' });
      li.dataset.tournament = t.id;
      li.append(
        el('a', { href: `#/tournament/${encodeURIComponent(t.id)}`, className: 'tournament-link', textContent: t.name }),
        el('span', { className: 'muted', textContent: ` · ${terms(t)} · ${players} player${players === 1 ? '' : 's'} · ${timing(t)}` }),
      );
      return li;
    }));
    const none = !this.$('.tournament-list').children.length;
    const empty = { running: 'No tournament is running just now.', upcoming: 'No tournament is coming up: create one below.', finished: 'No tournament has finished yet.' };
    line.textContent = none ? empty[status] : '';
    this.$('.more').hidden = !this.next;
    this.root.dataset.state = 'ready';
  }

  setUpForm() {
    const form = this.$('.create-form');
    const time = form.elements.time;
    for (const [key, tc] of CLOCKS) time.add(new Option(timeControlName(tc), key, false, key === DEFAULT_CLOCK));
    const sync = () => {
      const kind = form.elements.kind.value;
      for (const e of form.querySelectorAll('[data-for]')) e.hidden = e.dataset.for !== kind;
      form.elements.minutes.required = kind === 'arena';
      form.elements.rounds.required = kind === 'swiss';
    };
    form.addEventListener('change', sync);
    sync();
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const button = form.querySelector('button[type=submit]');
      button.disabled = true;
      form.querySelector('.problem')?.remove();
      const f = new FormData(form);
      const start = f.get('start');
      try {
        const t = await api.createTournament({
          kind: f.get('kind'),
          name: String(f.get('name')).trim(),
          timeControl: SEEK_PRESETS[f.get('time')],
          rated: f.get('rated') === 'on',
          startsAt: start ? new Date(start).toISOString() : undefined,
          minutes: Number(f.get('minutes')),
          rounds: Number(f.get('rounds')),
          berserk: f.get('berserk') === 'on',
        });
        location.hash = `#/tournament/${encodeURIComponent(t.id)}`;
      } catch (err) {
        form.append(el('p', { className: 'problem', textContent: problemText(err) }));
        form.lastChild.setAttribute('role', 'alert');
        button.disabled = false;
      }
    });
  }
}

// ---- An event's page ----

/** Standings lines a page. */
const PER_PAGE = 50;

export class TournamentView {
  constructor(root) {
    this.root = root;
    this.closed = false;
    this.page = 1;
    this.stops = [];
    this.reading = null; // the read in flight
    this.again = false; // news came during it: read once more after it
    this.$ = (sel) => root.querySelector(sel);
    this.$('.join').addEventListener('click', () => this.enter(true));
    this.$('.withdraw').addEventListener('click', () => this.enter(false));
    this.$('.prev-page').addEventListener('click', () => this.turn(-1));
    this.$('.next-page').addEventListener('click', () => this.turn(1));
  }

  async start(id) {
    this.id = id;
    this.me = await player.mine();
    if (this.closed) return;
    // The event first (a missing one is the page's failure), then its news.
    await this.read();
    if (this.closed) return;
    // Any news means "read it again"; so does the stream's opening, since
    // news from between the read and it is not sent.
    this.stops.push(api.followTournament(id, ({ type, data }) => {
      if (type === 'paired' && data?.gameId) this.paired = data.gameId;
      this.refresh();
    }));
    const tick = setInterval(() => this.drawTiming(), 1000);
    this.stops.push(() => clearInterval(tick));
  }

  close() {
    this.closed = true;
    for (const stop of this.stops) stop();
    this.stops = [];
  }

  /** Reads the event again, once however much news arrives meanwhile. */
  refresh() {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.read()
      .catch((err) => this.say(problemText(err), true))
      .finally(() => {
        this.reading = null;
        if (this.again && !this.closed) {
          this.again = false;
          this.refresh();
        }
      });
    return this.reading;
  }

  async read() {
    this.root.dataset.state = 'busy';
    const v = await api.getTournament(this.id, this.page, PER_PAGE);
    if (this.closed) return;
    // A page past the end (the table shrank): the last one there is.
    const pages = Math.max(1, Math.ceil(v.players / PER_PAGE));
    if (this.page > pages) {
      this.page = pages;
      return this.read();
    }
    this.view = v;
    this.mine = await this.myLine(v);
    if (this.closed) return;
    this.draw();
    this.root.dataset.state = 'ready';
  }

  /** This player's line of the standings, from the page shown or, when it is on another, from all of them. */
  async myLine(v) {
    const id = this.me?.id;
    if (!id) return null;
    const here = v.standings.find((s) => s.player.id === id);
    if (here || v.players <= v.standings.length) return here || null;
    try {
      return (await api.tournamentResults(this.id)).find((s) => s.player.id === id) || null;
    } catch {
      return null;
    }
  }

  draw() {
    const { tournament: t, players, games, playing } = this.view;
    document.title = `${t.name} · Ayoayo`;
    this.root.dataset.status = t.status;
    this.$('.tournament-name').textContent = t.name;
    const badge = this.$('.tournament-status');
    badge.textContent = STATUS_WORDS[t.status];
    badge.dataset.status = t.status;
    this.$('.tournament-terms').textContent = terms(t);
    this.drawTiming();
    this.$('.tournament-counts').textContent = `${players} player${players === 1 ? '' : 's'} · ${games} game${games === 1 ? '' : 's'}${playing ? `, ${playing} in play` : ''}`;
    const m = this.mine;
    const entered = !!m && !m.withdrawn;
    this.root.dataset.entered = String(entered);
    this.$('.join').hidden = t.status === 'finished' || entered || !this.me;
    this.$('.join').textContent = m?.withdrawn ? 'Join again' : 'Join';
    this.$('.withdraw').hidden = t.status === 'finished' || !entered;
    this.drawMyGame();
    this.drawStandings();
  }

  drawTiming() {
    if (this.view) this.$('.tournament-when').textContent = timing(this.view.tournament);
  }

  /** A link to this player's game in play in the event, when the standings say there is one. */
  async drawMyGame() {
    const link = this.$('.my-game');
    if (!this.mine?.playing) {
      link.hidden = true;
      return;
    }
    if (this.closed) return;
    try {
      const games = await api.tournamentGames(this.id);
      const me = this.me.id;
      const g = games.filter((x) => !x.done && (x.south === me || x.north === me)).pop();
      if (this.closed || !g) return;
      const side = g.south === me ? 'south' : 'north';
      keepSeat(g.id, side, this.id);
      const target = `#/game/${encodeURIComponent(g.id)}`;
      // Paired while this page is shown: the game opens, even if the
      // player's own stream missed its tournamentGame.
      if (this.paired === g.id && location.hash !== target) {
        location.hash = target;
        return;
      }
      link.href = target;
      link.textContent = `Your game, as ${side === 'south' ? 'South' : 'North'}`;
      link.hidden = false;
    } catch {
      link.hidden = true;
    }
  }

  drawStandings() {
    const { tournament: t, standings, players, page } = this.view;
    const arena = t.kind === 'arena';
    const cols = arena
      ? [['rank', '#'], ['player', 'Player'], ['rating', 'Rating'], ['points', 'Points'], ['sheet', 'Games'], ['record', 'W–D–L']]
      : [['rank', '#'], ['player', 'Player'], ['rating', 'Rating'], ['points', 'Points'], ['record', 'W–D–L'], ['buchholz', 'Buchholz'], ['sb', 'S-B']];
    const head = el('tr');
    for (const [key, text] of cols) {
      const th = el('th', { scope: 'col', textContent: text, className: `col-${key}` });
      if (key === 'record') th.title = 'Wins, draws, losses';
      if (key === 'sb') th.title = 'Sonneborn-Berger';
      head.append(th);
    }
    this.$('.standings thead').replaceChildren(head);
    const me = this.me?.id;
    this.$('.standings tbody').replaceChildren(...standings.map((s) => {
      const tr = el('tr');
      tr.dataset.player = s.player.id;
      if (s.player.id === me) tr.classList.add('me');
      if (s.withdrawn) tr.classList.add('withdrawn');
      const name = el('td', { className: 'col-player' },
        el('a', { href: `#/player/${encodeURIComponent(s.player.id)}`, textContent: s.player.id === me ? `${s.player.name} (you)` : s.player.name }));
      if (s.playing) name.append(' ', el('span', { className: 'tag playing', textContent: 'playing' }));
      if (s.withdrawn) name.append(' ', el('span', { className: 'tag', textContent: 'withdrawn' }));
      if (arena && s.onFire) name.append(' ', el('span', { className: 'tag on-fire', textContent: 'on fire', title: 'Two wins in a row: the next win counts double' }));
      const cells = {
        rank: String(s.rank),
        rating: String(Math.round(s.rating)),
        points: String(s.points),
        sheet: s.sheet.join(' ') || '—',
        record: `${s.wins}–${s.draws}–${s.losses}`,
        buchholz: String(s.buchholz),
        sb: String(s.sonnebornBerger),
      };
      tr.append(...cols.map(([key]) => (key === 'player' ? name : el('td', { className: `col-${key}`, textContent: cells[key] }))));
      return tr;
    }));
    this.$('.standings').hidden = !standings.length;
    this.$('.standings-empty').hidden = standings.length > 0;
    const pages = Math.max(1, Math.ceil(players / PER_PAGE));
    this.$('.pages').hidden = pages < 2;
    this.$('.page-of').textContent = `Page ${page} of ${pages}`;
    this.$('.prev-page').disabled = page <= 1;
    this.$('.next-page').disabled = page >= pages;
    this.$('.standings-key').textContent = arena
      ? 'A win scores 2, a draw 1; after two wins in a row (on fire) a win scores double. Games: the points of each game, in order.'
      : 'A win scores 2, a draw 1, a bye 2. Ties are broken by Buchholz (the opponents\' points), then Sonneborn-Berger.';
  }

  turn(by) {
    this.page = Math.max(1, this.page + by);
    this.refresh();
  }

  /** Joins (yes) or withdraws from the event as this browser's player. */
  async enter(yes) {
    const buttons = [this.$('.join'), this.$('.withdraw')];
    for (const b of buttons) b.disabled = true;
    this.say('');
    try {
      if (yes) {
        await api.joinTournament(this.id);
        this.say(this.view.tournament.status === 'running'
          ? 'You are in: your games open by themselves as you are paired. Keep this page open.'
          : 'You are in: your first game opens by itself when the tournament starts. Keep this page open.');
      } else {
        await api.withdrawFromTournament(this.id);
        this.say('You have withdrawn: no more games are made for you; your results stay in the standings.');
      }
    } catch (err) {
      this.say(problemText(err), true);
    }
    for (const b of buttons) b.disabled = false;
    await this.refresh();
  }

  say(text, isError = false) {
    const s = this.$('.entry');
    s.textContent = text;
    s.classList.toggle('problem', isError);
  }
}

/** Keeps the player's seat in a tournament game: it acts with the Player-Token. */
function keepSeat(id, side, tournament) {
  if (!saved.savedGame(id)?.tokens?.[side]) saved.saveSeat(id, side, api.PLAYER_SEAT, 'lobby');
  saved.markTournament(id, tournament);
}

// ---- The next game, wherever the player is ----

/**
 * Follows the player's stream for the whole page: a `tournamentGame`
 * opens that game as the player's seat, unless the page shows another game
 * of the player's in play, where a line under the header offers it instead
 * (root). inPlay() says whether the page does.
 */
export class TournamentPairings {
  constructor(root, inPlay) {
    this.root = root;
    this.inPlay = inPlay;
    this.stop = null;
    root.addEventListener('click', (ev) => {
      if (ev.target.closest('a')) root.hidden = true;
    });
  }

  async start() {
    const me = await player.mine();
    if (!me) return;
    this.stop = api.followPlayer((ev) => this.onEvent(ev));
  }

  onEvent({ type, data }) {
    if (type === 'gameFinish' && data?.gameId && this.root.dataset.game === data.gameId) this.root.hidden = true;
    if (type !== 'tournamentGame' || !data?.gameId || !data.side) return;
    keepSeat(data.gameId, data.side, data.tournamentId);
    const target = `#/game/${encodeURIComponent(data.gameId)}`;
    if (location.hash === target) return;
    if (this.inPlay()) {
      this.root.dataset.game = data.gameId;
      this.root.querySelector('a').href = target;
      this.root.hidden = false;
      return;
    }
    this.root.hidden = true;
    location.hash = target;
  }
}
