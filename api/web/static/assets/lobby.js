// The lobby: presets that post a seek, a quick pairing, the open seeks of
// everyone kept live by the lobby's event stream, this player's own open
// seeks with a cancel button each, and its games in play. When a seek pairs
// (at once, or later as the player's event stream says) the game opens as
// the player's seat: the seat has no token of its own, the player's
// Player-Token acts for it (api.PLAYER_SEAT).

import * as api from './api.js';
import * as saved from './store.js';
import * as player from './player.js';
import { timeControlName } from './game.js';
import { ratingText } from './ratings.js';
import { sideName } from './board.js';

/** The lobby's presets, in the order of their buttons. */
export const SEEK_PRESETS = {
  '1+0': { kind: 'clock', initialSeconds: 60, incrementSeconds: 0 },
  '3+2': { kind: 'clock', initialSeconds: 180, incrementSeconds: 2 },
  '5+3': { kind: 'clock', initialSeconds: 300, incrementSeconds: 3 },
  '10+5': { kind: 'clock', initialSeconds: 600, incrementSeconds: 5 },
  '15+10': { kind: 'clock', initialSeconds: 900, incrementSeconds: 10 },
  '1d': { kind: 'correspondence', daysPerMove: 1 },
  '3d': { kind: 'correspondence', daysPerMove: 3 },
  '7d': { kind: 'correspondence', daysPerMove: 7 },
};

/** What quick pairing seeks when no open seek suits: a middling clock. */
const QUICK = '5+3';

const sameTime = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export class LobbyView {
  constructor(root) {
    this.root = root;
    this.$ = (sel) => root.querySelector(sel);
    this.seeks = new Map(); // id → LobbySeek, the open seeks as listed
    this.closed = false;
    this.stops = [];
    this.me = null;
    this.$('.presets').addEventListener('click', (ev) => {
      const b = ev.target.closest('button[data-preset]');
      if (b) this.post(SEEK_PRESETS[b.dataset.preset], this.rated());
    });
    this.$('.quick').addEventListener('click', () => this.quick());
    this.$('.seeks tbody').addEventListener('click', (ev) => {
      const b = ev.target.closest('button[data-seek]');
      const s = b && this.seeks.get(b.dataset.seek);
      if (!s) return;
      if (b.dataset.action === 'cancel') this.cancel(s.id, b);
      else this.post(s.timeControl, s.rated);
    });
  }

  rated() {
    return this.$('input[name=rated]').checked;
  }

  async start() {
    document.title = 'Lobby · Ayoayo';
    this.me = await player.mine();
    if (this.closed) return;
    // The list first, then its changes: an event that raced the read only
    // adds or removes a seek the list has or lacks already.
    this.stops.push(api.followLobby((ev) => this.onLobby(ev)));
    for (const s of await api.lobby()) this.seeks.set(s.id, s);
    this.draw();
    if (this.me) this.stops.push(api.followPlayer((ev) => this.onPlayer(ev)));
  }

  close() {
    this.closed = true;
    for (const stop of this.stops) stop();
    this.stops = [];
  }

  onLobby({ type, data }) {
    // seekAdded's data is {seek: LobbySeek}, seekRemoved's {id}.
    const seek = data?.seek || data;
    if (!seek?.id) return;
    if (type === 'seekAdded') this.seeks.set(seek.id, seek);
    else if (type === 'seekRemoved') this.seeks.delete(seek.id);
    this.draw();
  }

  /**
   * The player's own events: a game of its that started opens when one of
   * its seeks was waiting (the stream also lists the games in play on
   * connection: those are offered as links, never opened by themselves).
   */
  onPlayer({ type, data }) {
    if (this.closed || !data) return;
    if (type === 'seekMatched' && data.gameId) {
      this.open(data.gameId, data.side);
    } else if (type === 'gameStart' && data.gameId) {
      if (this.mySeeks().length && !this.playing?.has(data.gameId)) this.open(data.gameId, data.side);
      else this.listPlaying(data.gameId, data.side);
    } else if (type === 'seek' && data.seek?.status === 'open' && !this.seeks.has(data.seek.id)) {
      this.seeks.set(data.seek.id, this.asListed(data.seek));
      this.draw();
    }
  }

  /** A seek of one's own (the API's Seek) as the lobby lists one. */
  asListed(seek) {
    return { ...seek, player: { id: this.me?.id, name: 'You' }, rating: null, provisional: true };
  }

  mySeeks() {
    return [...this.seeks.values()].filter((s) => s.player?.id === this.me?.id);
  }

  /** The games in play the player's stream named on connection, as links. */
  listPlaying(id, side) {
    this.playing ??= new Set();
    if (this.playing.has(id)) return;
    this.playing.add(id);
    keepSeat(id, side);
    const box = this.$('.playing');
    box.hidden = false;
    const li = document.createElement('li');
    const a = Object.assign(document.createElement('a'), { href: `#/game/${encodeURIComponent(id)}`, textContent: `Your game as ${sideName(side)}` });
    li.append(a);
    box.querySelector('ul').append(li);
  }

  /** Posts a seek; a matched answer opens its game at once. */
  async post(timeControl, rated) {
    this.say('');
    for (const b of this.root.querySelectorAll('button')) b.disabled = true;
    try {
      const seek = await api.createSeek({ timeControl, rated });
      if (seek.status === 'matched' && seek.game) {
        this.open(seek.game, seek.side);
        return;
      }
      if (!this.seeks.has(seek.id)) this.seeks.set(seek.id, this.asListed(seek));
      this.say(`Your ${timeControlName(timeControl)} seek is open: the game starts as soon as someone takes it.`);
    } catch (err) {
      this.say(err instanceof api.ApiError ? err.detail : String(err), true);
    }
    for (const b of this.root.querySelectorAll('button')) b.disabled = false;
    this.draw();
  }

  /**
   * Quick pairing: the oldest open seek of another player that this
   * player's rated switch allows is taken (a seek of the same time control
   * and rating pairs with it); with none, a 5+3 seek is posted.
   */
  quick() {
    const rated = this.rated();
    const theirs = [...this.seeks.values()].filter((s) => s.player?.id !== this.me?.id && (!rated || s.rated));
    const pick = theirs[theirs.length - 1]; // the list is newest first
    if (pick) return this.post(pick.timeControl, pick.rated);
    return this.post(SEEK_PRESETS[QUICK], rated);
  }

  async cancel(id, button) {
    button.disabled = true;
    try {
      await api.cancelSeek(id);
      this.seeks.delete(id);
      this.say('Seek cancelled.');
    } catch (err) {
      button.disabled = false;
      this.say(err instanceof api.ApiError ? err.detail : String(err), true);
    }
    this.draw();
  }

  open(id, side) {
    if (this.closed) return;
    keepSeat(id, side, 'lobby');
    this.close();
    location.hash = `#/game/${encodeURIComponent(id)}`;
  }

  say(text, isError = false) {
    const s = this.$('.status');
    s.textContent = text;
    s.classList.toggle('problem', isError);
  }

  draw() {
    if (this.closed) return;
    const rows = [...this.seeks.values()].map((s) => {
      const tr = document.createElement('tr');
      const mine = s.player?.id === this.me?.id;
      tr.dataset.seek = s.id;
      tr.dataset.mine = String(mine);
      const td = (text, cls) => Object.assign(document.createElement('td'), { textContent: text, className: cls || '' });
      const rating = s.rating === null || s.rating === undefined ? '—' : ratingText({ rating: Math.round(s.rating), provisional: s.provisional });
      const b = Object.assign(document.createElement('button'), { type: 'button', textContent: mine ? 'Cancel' : 'Play' });
      b.dataset.seek = s.id;
      b.dataset.action = mine ? 'cancel' : 'join';
      if (mine) b.setAttribute('aria-label', `Cancel your ${timeControlName(s.timeControl)} seek`);
      const action = document.createElement('td');
      action.append(b);
      tr.append(td(mine ? 'You' : s.player?.name || '?', 'seek-name'), td(rating, 'seek-rating'), td(timeControlName(s.timeControl), 'seek-time'), td(s.rated ? 'rated' : 'casual', 'seek-rated'), action);
      return tr;
    });
    this.$('.seeks tbody').replaceChildren(...rows);
    this.$('.seeks').hidden = !rows.length;
    this.$('.empty').hidden = rows.length > 0;
    const mine = this.mySeeks();
    const line = this.$('.my-seek');
    line.hidden = !mine.length;
    line.querySelector('.my-seek-text').textContent = mine.map((s) => timeControlName(s.timeControl)).join(', ');
  }
}

/** Keeps the player's seat in a game: it acts with the Player-Token. */
function keepSeat(id, side, mode) {
  if (!side || saved.savedGame(id)?.tokens?.[side]) return;
  saved.saveSeat(id, side, api.PLAYER_SEAT, mode || 'lobby');
}
