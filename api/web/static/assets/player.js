// This browser's player: made quietly on the first visit (no name, no
// questions), its token kept in localStorage, and made afresh, as quietly,
// when the server no longer knows the token (a player deleted, a database
// started over). Requests that name a player get the token through
// api.usePlayer; a page that cannot make one goes on anonymously.

import * as api from './api.js';
import * as saved from './store.js';

let making = null;

/** Makes a player and keeps it; answers its token, or null when the server made none. */
function make() {
  making ??= api
    .createPlayer()
    .then(({ player, token }) => {
      saved.setPlayer(player.id, token);
      return token;
    })
    .catch(() => null) // rate-limited, or a server without players: anonymous for now
    .finally(() => {
      making = null;
    });
  return making;
}

/** The token of this browser's player, made first if there is none. */
export function token() {
  const p = saved.player();
  return p ? Promise.resolve(p.token) : make();
}

/**
 * A fresh player in place of the one whose token was stale; when another
 * request replaced it already, that one.
 */
export function renew(stale) {
  const p = saved.player();
  if (p && p.token !== stale) return Promise.resolve(p.token);
  if (p) saved.forgetPlayer();
  return make();
}

/** This browser's player {id, token}, made first if there is none; null if none could be made. */
export async function mine() {
  await token();
  return saved.player();
}

api.usePlayer({ token, renew });
