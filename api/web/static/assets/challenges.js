// Challenges wherever the player is: a small banner under the header, kept
// by this browser's player's own event stream (api.followPlayer) for as
// long as the page is open, whatever view shows. An incoming challenge
// shows who sends it and its terms, with Accept and Decline (and a reason
// to decline with); an outgoing one, sent from a profile, shows that it
// waits, with Cancel, and then that it was declined and why, or withdrawn.
// When a challenge either side of it is accepted, the game opens for both
// as the player's seat (the Player-Token acts for it, api.PLAYER_SEAT).

import * as api from './api.js';
import * as saved from './store.js';
import * as player from './player.js';
import { timeControlName } from './game.js';

/** What a decline's reason says to the challenger (and offers the challenged). */
export const DECLINE_WORDS = {
  generic: 'Not accepting challenges just now',
  later: 'Not now: ask again later',
  tooFast: 'Too fast: a slower game, please',
  tooSlow: 'Too slow: a faster game, please',
  timeControl: 'Not this time control',
  rated: 'A rated game instead, please',
  casual: 'A casual game instead, please',
};

function el(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

/** A challenge's terms in words: "5+3 clock, casual". */
export function challengeTerms(c) {
  return `${timeControlName(c.timeControl)}, ${c.rated ? 'rated' : 'casual'}`;
}

export class ChallengeBanner {
  constructor(root) {
    this.root = root;
    this.me = null;
    this.pending = new Map(); // id → Challenge, pending, to or from the player
    this.notes = new Map(); // id → text, a challenge's outcome to show until dismissed
    this.stop = null;
    root.addEventListener('click', (ev) => {
      const b = ev.target.closest('button[data-action]');
      const item = b?.closest('[data-challenge]');
      if (item) this.act(b.dataset.action, item.dataset.challenge, item);
    });
  }

  /** Follows the player's events; a page without a player shows none. */
  async start() {
    this.me = await player.mine();
    if (!this.me) return;
    this.stop = api.followPlayer((ev) => this.onEvent(ev));
  }

  close() {
    if (this.stop) this.stop();
    this.stop = null;
  }

  /** A challenge this page sent (the stream tells of it too: once is enough). */
  sent(c) {
    if (c?.status === 'pending') this.pending.set(c.id, c);
    this.draw();
  }

  onEvent({ type, data }) {
    const c = data?.challenge;
    if (!c?.id) return;
    const mine = c.from?.id === this.me?.id;
    const who = mine ? c.to?.name || 'Your opponent' : c.from?.name || 'Your opponent';
    if (type === 'challenge' && c.status === 'pending') {
      this.pending.set(c.id, c);
    } else if (type === 'gameStart' && data.gameId) {
      // A game that started from a challenge this page showed: open it.
      const known = this.pending.has(c.id);
      this.pending.delete(c.id);
      this.notes.delete(c.id);
      if (known && !this.showsGame(data.gameId)) this.openGame(data.gameId, data.side);
    } else if (type === 'challengeDeclined') {
      if (this.pending.delete(c.id) && mine) {
        const reason = DECLINE_WORDS[data.reason || c.reason] || DECLINE_WORDS.generic;
        this.notes.set(c.id, { text: `${who} declined your ${challengeTerms(c)} challenge: “${reason}”.`, reason: data.reason || c.reason || 'generic' });
      }
    } else if (type === 'challengeCanceled') {
      if (this.pending.delete(c.id)) {
        const text = c.status === 'expired'
          ? `The ${challengeTerms(c)} challenge ${mine ? `to ${who}` : `from ${who}`} expired.`
          : `${who} withdrew the ${challengeTerms(c)} challenge.`;
        if (!mine || c.status === 'expired') this.notes.set(c.id, { text });
      }
    }
    this.draw();
  }

  /** Whether the page shows game id already. */
  showsGame(id) {
    return location.hash === `#/game/${encodeURIComponent(id)}`;
  }

  openGame(id, side) {
    if (side && !saved.savedGame(id)?.tokens?.[side]) saved.saveSeat(id, side, api.PLAYER_SEAT, 'lobby');
    location.hash = `#/game/${encodeURIComponent(id)}`;
  }

  async act(action, id, item) {
    if (action === 'dismiss') {
      this.notes.delete(id);
      this.draw();
      return;
    }
    const c = this.pending.get(id);
    if (!c) return;
    for (const b of item.querySelectorAll('button, select')) b.disabled = true;
    try {
      if (action === 'accept') {
        const done = await api.acceptChallenge(id);
        this.pending.delete(id);
        // The stream's gameStart may come first or after: open it here.
        if (done.game) this.openGame(done.game, this.mySide(done));
      } else if (action === 'decline') {
        const reason = item.querySelector('select[name=reason]')?.value || 'generic';
        await api.declineChallenge(id, reason);
        this.pending.delete(id);
      } else if (action === 'cancel') {
        await api.cancelChallenge(id);
        this.pending.delete(id);
      }
    } catch (err) {
      this.pending.delete(id);
      this.notes.set(id, { text: err instanceof api.ApiError ? err.detail : String(err), problem: true });
    }
    this.draw();
  }

  /** This player's side in an accepted challenge's game: the Challenge's `side` is the challenger's. */
  mySide(c) {
    if (!c.side) return null;
    if (c.from?.id === this.me?.id) return c.side;
    return c.side === 'south' ? 'north' : 'south';
  }

  draw() {
    const items = [];
    for (const c of this.pending.values()) {
      if (c.rematchOf && this.showsGame(c.rematchOf)) continue; // the game's own page offers it
      const li = el('li', { className: 'challenge-note' });
      li.dataset.challenge = c.id;
      const terms = challengeTerms(c) + (c.rematchOf ? ' (a rematch)' : '');
      if (c.from?.id === this.me?.id) {
        li.dataset.dir = 'out';
        li.append(
          el('span', { className: 'challenge-text', textContent: `Waiting for ${c.to?.name || 'anyone with the link'} to accept your ${terms} challenge.` }),
          el('button', { type: 'button', textContent: 'Cancel' }),
        );
        li.lastChild.dataset.action = 'cancel';
      } else {
        li.dataset.dir = 'in';
        const select = el('select', { name: 'reason', title: 'Why you decline' },
          ...api.DECLINE_REASONS.map((r) => el('option', { value: r, textContent: DECLINE_WORDS[r] })));
        select.setAttribute('aria-label', 'Reason to decline');
        const accept = el('button', { type: 'button', className: 'primary', textContent: 'Accept' });
        accept.dataset.action = 'accept';
        const decline = el('button', { type: 'button', textContent: 'Decline' });
        decline.dataset.action = 'decline';
        li.append(el('span', { className: 'challenge-text', textContent: `${c.from?.name || 'Someone'} challenges you: ${terms}.` }), accept, select, decline);
      }
      items.push(li);
    }
    for (const [id, note] of this.notes) {
      const li = el('li', { className: 'challenge-note' + (note.problem ? ' problem' : '') });
      li.dataset.challenge = id;
      li.dataset.dir = 'note';
      if (note.reason) li.dataset.reason = note.reason;
      const dismiss = el('button', { type: 'button', textContent: 'Dismiss' });
      dismiss.dataset.action = 'dismiss';
      li.append(el('span', { className: 'challenge-text', textContent: note.text }), dismiss);
      items.push(li);
    }
    this.root.querySelector('ul').replaceChildren(...items);
    this.root.hidden = items.length === 0;
  }
}
