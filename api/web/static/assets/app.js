// The page: a small hash router over the views (new game, a game, the daily
// puzzle, practice, the archive, a player's profile, the leaderboards), the
// keyboard shortcuts and the screen-reader announcements. Routes:
//   #/                 new game
//   #/game/ID          a game (seat tokens from this browser's storage)
//   #/join/ID          take the other seat of a friend's game, then #/game/ID
//   #/puzzle[/DATE]    the daily puzzle, or that day's
//   #/puzzles          earlier puzzles
//   #/practice[/ID]    more puzzles: a practice puzzle, and another
//   #/player[/ID]      this browser's player's profile, or anyone's
//   #/leaderboard[/C]  the best players of category C (live by default)
//   #/lobby            seek a game against another player, the open seeks
//   #/tournaments[/S]  the tournaments of status S (running by default), and a form to create one
//   #/tournament/ID    an event: its standings, live; join, withdraw
// Besides the views, a banner under the header shows the challenges to and
// from the player wherever it is (challenges.js), and the player's next
// tournament game opens by itself (tournaments.js).
// A game or puzzle that cannot be shown (none by that id or day, a server
// that does not answer) gets a page that says why and offers a way on.

import * as api from './api.js';
import { GameView, TIME_CONTROLS, timeControlKey, timeControlName } from './game.js';
import { PuzzleView, PracticeView, ArchiveView } from './puzzle.js';
import * as saved from './store.js';
import * as player from './player.js';
import { ProfileView, LeaderboardView } from './profile.js';
import { LobbyView } from './lobby.js';
import { ChallengeBanner } from './challenges.js';
import { TournamentListView, TournamentView, TournamentPairings } from './tournaments.js';

const main = document.getElementById('main');
const announcer = document.getElementById('announce');
let view = null;

const app = {
  /** Says something to screen readers without moving focus. */
  announce(text) {
    announcer.textContent = '';
    // A fresh text node after a tick makes repeated identical messages heard.
    setTimeout(() => { announcer.textContent = text; }, 30);
  },
  /** Creates a game of these settings (see newGame) and opens it. */
  async startGame(settings) {
    const id = await newGame(settings);
    location.hash = `#/game/${encodeURIComponent(id)}`;
  },
  /** Opens the new-game form filled in with these settings. */
  prefill(settings) {
    history.pushState({ settings }, '', '#/');
    route();
  },
};

function mount(templateId) {
  const tpl = document.getElementById(templateId);
  const node = tpl.content.firstElementChild.cloneNode(true);
  main.replaceChildren(node);
  return node;
}

function showProblem(err, where) {
  const p = document.createElement('p');
  p.className = 'problem';
  p.setAttribute('role', 'alert');
  p.textContent = err instanceof api.ApiError ? err.detail : String(err);
  (where || main).append(p);
}

// A mangled address (a lone %) is taken as written rather than breaking the page.
function decode(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Replaces the view with a page that says, in the player's terms, why the
 * game or puzzle at this address cannot be shown, and links to where to go
 * instead. what: 'game', 'puzzle' or 'practice'; arg: the game's id, the
 * puzzle's day or the practice puzzle's id.
 */
function showFailure(err, what, arg) {
  if (view) view.close();
  view = null;
  const node = mount('tpl-missing');
  const status = err instanceof api.ApiError ? err.status : -1;
  const links = [];
  const link = (text, href) => links.push(Object.assign(document.createElement('a'), { className: 'button', href, textContent: text }));
  let kind;
  let title;
  let text;
  if (status === 0) {
    kind = 'unreachable';
    title = 'The server cannot be reached';
    text = 'The page could not ask the server for this. Check the connection, then try again.';
  } else if (what === 'game' && (status === 404 || status === 400)) {
    kind = 'game';
    title = 'No such game';
    text = `This server has no game “${arg}”. The link may be cut short or mistyped, or the game was played on another server.`;
    link('Start a new game', '#/');
    link("Today's puzzle", '#/puzzle');
    if (saved.savedGame(arg)) {
      const forget = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Forget it in this browser' });
      forget.addEventListener('click', () => {
        saved.forgetGame(arg);
        location.hash = '#/';
      });
      links.push(forget);
    }
  } else if (what === 'player' && (status === 404 || status === 400)) {
    kind = 'player';
    title = 'No such player';
    text = `This server has no player “${arg}”. The link may be cut short or mistyped, or the player was deleted.`;
    link('Leaderboard', '#/leaderboard');
    link('Your profile', '#/player');
  } else if (what === 'tournament' && (status === 404 || status === 400)) {
    kind = 'tournament';
    title = 'No such tournament';
    text = `This server has no tournament “${arg}”. The link may be cut short or mistyped.`;
    link('Tournaments', '#/tournaments');
  } else if (what === 'practice' && (status === 404 || status === 400)) {
    kind = 'puzzle';
    title = 'No such practice puzzle';
    text = `“${arg}” is not the address of a practice puzzle this server can make. The link may be cut short or mistyped.`;
    link('More puzzles', '#/practice');
    link("Today's puzzle", '#/puzzle');
  } else if (what === 'puzzle' && status === 400) {
    kind = 'puzzle';
    title = 'Not a day';
    text = `Each puzzle is found by its day, as #/puzzle/YYYY-MM-DD: today's is #/puzzle/${today()}.`;
    link("Today's puzzle", '#/puzzle');
    link('Earlier puzzles', '#/puzzles');
  } else if (what === 'puzzle' && status === 404) {
    kind = 'puzzle';
    if (!arg) {
      title = 'No puzzle today';
      text = 'The server has no puzzle for today. Earlier days may have one.';
    } else if (arg > today()) {
      title = `No puzzle for ${arg} yet`;
      text = `Each day's puzzle is published on its day (UTC), and today is ${today()}: no peeking ahead.`;
    } else {
      title = `No puzzle for ${arg}`;
      text = 'The daily puzzles do not go back that far. Earlier puzzles lists every day there is.';
    }
    link("Today's puzzle", '#/puzzle');
    link('Earlier puzzles', '#/puzzles');
  } else {
    kind = 'error';
    title = 'Something went wrong';
    text = err instanceof api.ApiError ? err.detail : String(err);
  }
  if (kind === 'unreachable' || kind === 'error') {
    const again = Object.assign(document.createElement('button'), { type: 'button', className: 'primary', textContent: 'Try again' });
    again.addEventListener('click', route);
    links.unshift(again);
    link('New game', '#/');
  }
  node.dataset.missing = kind;
  node.querySelector('h1').textContent = title;
  node.querySelector('.missing-text').textContent = text;
  node.querySelector('.controls').replaceChildren(...links);
  document.title = `${title} · Ayoayo`;
}

function setNav(name) {
  for (const a of document.querySelectorAll('[data-nav]')) {
    if (a.dataset.nav === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function route() {
  if (view) view.close();
  view = null;
  document.title = 'Ayoayo';
  const hash = location.hash.replace(/^#\/?/, '');
  const [name, arg] = hash.split('/').map(decode);
  try {
    switch (name) {
      case 'game': {
        setNav('');
        const node = mount('tpl-game');
        view = new GameView(node, arg, app);
        const notice = history.state?.notice;
        if (notice) history.replaceState(null, '', location.href); // say it once, not on every reload
        await view.start(notice);
        break;
      }
      case 'join':
        setNav('');
        await join(arg);
        break;
      case 'puzzle': {
        setNav('puzzle');
        const node = mount('tpl-puzzle');
        view = new PuzzleView(node, app);
        await view.start(arg);
        break;
      }
      case 'practice': {
        setNav('practice');
        const node = mount('tpl-puzzle');
        view = new PracticeView(node, app);
        await view.start(arg);
        break;
      }
      case 'puzzles': {
        setNav('archive');
        const node = mount('tpl-archive');
        view = new ArchiveView(node);
        await view.start();
        break;
      }
      case 'player': {
        setNav(arg && arg !== saved.player()?.id ? '' : 'profile');
        const node = mount('tpl-profile');
        view = new ProfileView(node, app);
        await view.start(arg);
        break;
      }
      case 'lobby': {
        setNav('lobby');
        const node = mount('tpl-lobby');
        view = new LobbyView(node);
        await view.start();
        break;
      }
      case 'tournaments': {
        setNav('tournaments');
        const node = mount('tpl-tournaments');
        view = new TournamentListView(node);
        await view.start(arg);
        break;
      }
      case 'tournament': {
        setNav('tournaments');
        const node = mount('tpl-tournament');
        view = new TournamentView(node);
        await view.start(arg);
        break;
      }
      case 'leaderboard': {
        setNav('leaderboard');
        const node = mount('tpl-leaderboard');
        view = new LeaderboardView(node);
        await view.start(arg);
        break;
      }
      default:
        setNav('play');
        home(history.state?.settings);
    }
  } catch (err) {
    if (name === 'game' || name === 'join') showFailure(err, 'game', arg);
    else if (name === 'player') showFailure(err, 'player', arg);
    else if (name === 'tournament') showFailure(err, 'tournament', arg);
    else if (name === 'puzzle' || name === 'practice') showFailure(err, name, arg);
    else showFailure(err, '', arg);
  }
}

/** The opening position: a game from it needs no start. */
const opening = (p) => p.pits.every((n) => n === 4) && p.captured.south === 0 && p.captured.north === 0 && p.toMove === 'south';

/** The new-game form; settings (from a game's "New game with these settings") fill it in. */
function home(settings) {
  const node = mount('tpl-home');
  const form = node.querySelector('#new-game');
  const rated = form.elements.rated;
  const sync = () => {
    const mode = form.elements.mode.value;
    for (const el of form.querySelectorAll('[data-for]')) el.hidden = !el.dataset.for.split(' ').includes(mode);
    // Only a timed game between two players is rated: never one against
    // the AI, nor two people at one screen (one player, both seats).
    const timed = !!(TIME_CONTROLS[form.elements.time.value] ?? customTime(form, form.elements.time.value));
    rated.disabled = !timed || mode !== 'friend';
    if (rated.disabled) rated.checked = false;
    form.querySelector('.rated-why').textContent = timed ? "the result changes both players' ratings" : 'only a game with a clock or days a move is rated';
  };
  const start = settings?.start && !opening(settings.start) ? settings.start : null;
  if (settings) fill(form, settings);
  form.querySelector('.same-start').hidden = !start;
  form.addEventListener('change', sync);
  sync();
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    form.querySelector('.problem')?.remove();
    try {
      const f = new FormData(form);
      await app.startGame({
        mode: f.get('mode'),
        seat: f.get('seat'),
        level: Number(f.get('level')),
        rules: { captureSeed: f.get('captureSeed'), leftovers: f.get('leftovers') },
        start: start && f.get('sameStart') ? start : null,
        timeControl: TIME_CONTROLS[f.get('time')] ?? customTime(form, f.get('time')),
        rated: !rated.disabled && rated.checked,
      });
    } catch (err) {
      showProblem(err, form);
      button.disabled = false;
    }
  });
  const games = saved.savedGames().filter((g) => g.summary);
  if (games.length) {
    const box = node.querySelector('#my-games');
    box.hidden = false;
    box.querySelector('ul').replaceChildren(
      ...games.slice(0, 8).map((g) => {
        const li = document.createElement('li');
        const a = document.createElement('a');
        a.href = `#/game/${encodeURIComponent(g.id)}`;
        a.textContent = g.summary.title || g.id;
        li.append(a, ` · ${g.summary.status}, ply ${g.summary.ply}`);
        return li;
      }),
    );
  }
}

/** Sets the form's fields to settings: a game's, to start another like it. */
function fill(form, s) {
  const set = (name, value) => {
    const el = form.elements[name];
    if (el && value !== undefined && value !== null) el.value = String(value);
  };
  set('mode', s.mode);
  set('seat', s.seat);
  set('level', s.level);
  set('captureSeed', s.rules?.captureSeed);
  set('leftovers', s.rules?.leftovers);
  form.elements.rated.checked = !!s.rated;
  const key = timeControlKey(s.timeControl);
  const select = form.elements.time;
  if (!(key in TIME_CONTROLS)) {
    // A time control of no preset (made through the API): offered as it was.
    const opt = new Option(timeControlName(s.timeControl), key);
    opt.dataset.timeControl = JSON.stringify(s.timeControl);
    select.add(opt);
  }
  select.value = key;
}

function customTime(form, key) {
  const opt = [...form.elements.time.options].find((o) => o.value === key);
  return opt?.dataset.timeControl ? JSON.parse(opt.dataset.timeControl) : null;
}

/**
 * Creates a game and keeps its seats in this browser; answers its id.
 * settings: {mode: 'ai'|'local'|'friend', seat, level, rules, start, timeControl, rated}
 * (start and timeControl null for the opening position, untimed; rated only
 * for a timed game against a friend).
 */
async function newGame({ mode, seat, level, rules, start, timeControl, rated }) {
  const extra = { rules, start: start && !opening(start) ? start : undefined, timeControl: timeControl || undefined };
  if (mode === 'ai') {
    const { game, token } = await api.createGame({ seat, ...extra, opponent: { type: 'ai', level } });
    saved.saveSeat(game.id, seat, token, 'ai');
    return game.id;
  }
  if (mode === 'local') {
    // Two people at one screen: create the game, then take the other seat too.
    const { game, token } = await api.createGame({ seat: 'south', ...extra, opponent: { type: 'human' } });
    saved.saveSeat(game.id, 'south', token, 'local');
    // The second person at this screen is not this browser's player.
    const joined = await api.joinGame(game.id, false);
    saved.saveSeat(game.id, joined.seat || 'north', joined.token, 'local');
    return game.id;
  }
  const { game, token } = await api.createGame({ seat, ...extra, rated: rated && !!timeControl, opponent: { type: 'human' } });
  saved.saveSeat(game.id, seat, token, 'friend');
  return game.id;
}

/**
 * Opening a shared link: take the free seat, keep its token, show the game.
 * The game is read first: one whose seats are taken, or that is over, is
 * watched without asking for a seat (the server could only refuse it, 409).
 */
async function join(id) {
  const mine = saved.savedGame(id);
  const target = `#/game/${encodeURIComponent(id)}`;
  if (mine && Object.keys(mine.tokens || {}).length) {
    history.replaceState({ notice: 'You already hold a seat in this game.' }, '', target);
    return route();
  }
  const full = 'Both seats were already taken when you opened the link.';
  const g = await api.getGame(id);
  let notice;
  if (g.status !== 'waiting') {
    notice = g.status === 'active' ? full : 'This game is over: there is no seat to take.';
  } else {
    try {
      const { token, seat } = await api.joinGame(id);
      saved.saveSeat(id, seat, token, 'friend');
    } catch (err) {
      // Someone took the seat between the read and the join.
      if (!(err instanceof api.ApiError) || err.status !== 409) throw err;
      notice = full;
    }
  }
  history.replaceState({ notice }, '', target);
  return route();
}

// Keyboard: digits sow the mover's pits numbered so, the arrows step
// through a game's moves (unless a pit reached by keyboard takes them, to
// move between pits), N and P a reviewed game's mistakes, Escape skips an
// animation. Typing in a form field is
// left alone.
const steps = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'start', End: 'live' };
document.addEventListener('keydown', (ev) => {
  if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.defaultPrevented) return;
  const t = ev.target;
  if (t instanceof HTMLElement && t.closest('input, select, textarea')) return;
  if (ev.key === 'Escape' && view?.board) {
    view.board.skip();
    return;
  }
  if (steps[ev.key] && view?.step) {
    ev.preventDefault();
    view.step(steps[ev.key]);
    return;
  }
  // A reviewed game: N and P step to the next and the previous mistake.
  if ((ev.key === 'n' || ev.key === 'p') && view?.stepMistake) {
    ev.preventDefault();
    view.stepMistake(ev.key === 'n' ? 'next' : 'prev');
    return;
  }
  if (/^[1-6]$/.test(ev.key) && view?.board) {
    ev.preventDefault();
    view.board.activateNth(Number(ev.key));
  }
});

const speed = document.getElementById('speed');
speed.value = saved.speed();
speed.addEventListener('change', () => {
  saved.setSpeed(speed.value);
  if (view?.board) view.board.speed = speed.value;
});

window.addEventListener('hashchange', route);
// The player is made on the first visit, quietly, while the page loads.
player.token();
route();
// Challenges to and from the player show wherever it is, for as long as
// the page is open (its event stream also keeps its clock challenges alive).
app.challenges = new ChallengeBanner(document.getElementById('challenges'));
app.challenges.start();
// The player's next tournament game opens by itself wherever the page is,
// unless it shows another game of the player's in play.
app.pairings = new TournamentPairings(document.getElementById('tournament-call'), () => !!view?.inPlay?.());
app.pairings.start();
