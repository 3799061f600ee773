// What this browser remembers: its player (the id and the secret token the
// server made for it on the first visit), each game's seat tokens
// (localStorage, one key per game, so a reload or a new tab keeps the seat),
// the animation speed and the puzzles solved here. Nothing else is kept, and
// no account is needed.

const GAME_PREFIX = 'ayoayo.game.';

function read(key) {
  try {
    const v = localStorage.getItem(key);
    return v ? JSON.parse(v) : null;
  } catch {
    return null; // storage disabled or a value from elsewhere: start afresh
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or disabled: the game still works in this tab.
  }
}

/** {tokens: {south?, north?}, mode: 'ai'|'local'|'friend'|'lobby'|'watch', created, tournament?} or null. */
export function savedGame(id) {
  return read(GAME_PREFIX + id);
}

export function saveSeat(id, seat, token, mode) {
  const g = savedGame(id) || { tokens: {}, mode, created: new Date().toISOString() };
  g.tokens[seat] = token;
  if (mode) g.mode = mode;
  write(GAME_PREFIX + id, g);
  return g;
}

/** Notes that a game of this browser's player is a game of tournament (an arena's or a Swiss event's). */
export function markTournament(id, tournament) {
  const g = savedGame(id);
  if (g && tournament) {
    g.tournament = tournament;
    write(GAME_PREFIX + id, g);
  }
}

/** Drops what this browser keeps of a game: its seats are gone for good. */
export function forgetGame(id) {
  try {
    localStorage.removeItem(GAME_PREFIX + id);
  } catch {
    // Storage disabled: there was nothing to forget.
  }
}

export function setGameSummary(id, summary) {
  const g = savedGame(id);
  if (g) {
    g.summary = summary;
    write(GAME_PREFIX + id, g);
  }
}

/** The games this browser holds a seat in, newest first. */
export function savedGames() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k && k.startsWith(GAME_PREFIX)) {
        const g = read(k);
        if (g) out.push({ id: k.slice(GAME_PREFIX.length), ...g });
      }
    }
  } catch {
    return [];
  }
  return out.sort((a, b) => String(b.created).localeCompare(String(a.created)));
}

export function speed() {
  return read('ayoayo.speed') || 'normal';
}

export function setSpeed(s) {
  write('ayoayo.speed', s);
}

export function solvedPuzzles() {
  return new Set(read('ayoayo.solved') || []);
}

export function markSolved(id) {
  const s = solvedPuzzles();
  s.add(id);
  write('ayoayo.solved', [...s].slice(-400));
}

const PLAYER = 'ayoayo.player';

/** This browser's player: {id, token}, or null before the first one is made. */
export function player() {
  const p = read(PLAYER);
  return p && typeof p.id === 'string' && typeof p.token === 'string' ? p : null;
}

export function setPlayer(id, token) {
  write(PLAYER, { id, token });
}

/** Drops the player whose token the server no longer knows. */
export function forgetPlayer() {
  try {
    localStorage.removeItem(PLAYER);
  } catch {
    // Storage disabled: there was nothing kept.
  }
}
