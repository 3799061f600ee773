// Everything this client knows about the Ayoayo HTTP API is in this module:
// paths, request bodies, answer shapes, errors. The rest of the page sees only
// the plain objects returned here, so a front end copying this client can start
// from this file. The contract is /openapi.yaml (browsable at /docs).

/** An error answer: RFC 9457 problem details, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(status, problem = {}) {
    super(problem.detail || problem.title || (status ? `HTTP ${status}` : 'The server cannot be reached.'));
    this.name = 'ApiError';
    this.status = status;
    this.code = problem.code || '';
    this.title = problem.title || '';
    this.detail = problem.detail || this.message;
    this.problem = problem;
  }
}

// Answers remembered by URL with their ETag, so a repeated GET costs a 304.
const cache = new Map();

// The player this browser acts as (see usePlayer): null until the page says.
let player = null;

/**
 * Says how requests that can name a player get its token: token() answers the
 * current one (making a player first when there is none; null to go
 * anonymous), renew(stale) answers a fresh one once the server no longer
 * knows stale. Every request that names a player sends it as Player-Token,
 * and one refused for it (401 player_unauthorized) is sent once more with
 * the fresh token.
 */
export function usePlayer(p) {
  player = p;
}

async function call(method, path, opts = {}) {
  if (!opts.asPlayer || !player) return send(method, path, opts);
  const playerToken = await player.token();
  try {
    return await send(method, path, { ...opts, playerToken });
  } catch (err) {
    if (!playerToken || !(err instanceof ApiError) || err.code !== 'player_unauthorized') throw err;
    const fresh = await player.renew(playerToken);
    if (!fresh || fresh === playerToken) throw err;
    return send(method, path, { ...opts, playerToken: fresh });
  }
}

async function send(method, path, { body, token, playerToken, query, conditional = false } = {}) {
  let url = path;
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
    const s = q.toString();
    if (s) url += '?' + s;
  }
  const headers = { Accept: 'application/json, application/problem+json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = 'Bearer ' + token;
  if (playerToken) headers['Player-Token'] = playerToken;
  const cached = conditional ? cache.get(url) : undefined;
  if (cached) headers['If-None-Match'] = cached.etag;

  let res;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, { detail: 'The server cannot be reached: ' + err.message });
  }
  if (res.status === 304 && cached) return cached.data;
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!res.ok) {
    throw new ApiError(res.status, data && typeof data === 'object' ? data : { detail: `${res.status} ${res.statusText}` });
  }
  const etag = res.headers.get('ETag');
  if (conditional && etag) cache.set(url, { etag, data });
  return data;
}

const enc = encodeURIComponent;

// ---- Stateless rules endpoints (shapes fixed by the design) ----

/** Every pit of the player to move, each with its outcome: [{pit, legal, reason?, legs, capture, position, result}]. */
export async function legalMoves(position, rules) {
  const data = await call('POST', '/v1/moves', { body: { position, rules } });
  return data.moves;
}

/** One move's full outcome. */
export function evaluate(position, pit, rules) {
  return call('POST', '/v1/evaluate', { body: { position, pit, rules } });
}

// ---- The opening explorer ----

// The symbols of the position notation: a pit's count is the symbol at that index.
const PIT_SYMBOLS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM';

/**
 * A position ({pits, captured, toMove}) in the text notation the explorer
 * reads: side to move, South's six pits, North's six, then the seeds each
 * side captured: "s-444444-444444-0-0".
 */
export function positionNotation(p) {
  const row = (from) => p.pits.slice(from, from + 6).map((n) => PIT_SYMBOLS[n] ?? '?').join('');
  return `${p.toMove === 'north' ? 'n' : 's'}-${row(0)}-${row(6)}-${p.captured.south}-${p.captured.north}`;
}

/**
 * The moves played from a position in the finished rated games of a
 * category ('live' or 'correspondence'), among the games whose average
 * rating is within ratings ("MIN-MAX"; empty: every rating):
 * {position, category, ratings: {min, max}, games, south, draws, north,
 * moves: [{pit, games, south, draws, north, averageRating, recentGames,
 * score?, exact?}], engine?: {depth, exact}}. A move's score is in seeds
 * for the player to move; absent while the server's search has not
 * finished (asking again a moment later gets it).
 */
export async function explore(position, { category = 'live', ratings = '' } = {}) {
  return call('GET', '/v1/explorer', { query: { position: positionNotation(position), category, ratings } });
}

// ---- Game sessions ----

/**
 * Creates a game. opponent is {type: 'ai', level} or {type: 'human'}; seat is the
 * creator's side; start (a Position) and timeControl are optional: none is an
 * untimed game from the opening position. timeControl is {kind: 'clock',
 * initialSeconds, incrementSeconds} or {kind: 'correspondence', daysPerMove}.
 * rated asks for a rated game (timed, against a person; 422
 * rated_not_allowed otherwise). The seat is this browser's player's.
 * Answers {game, token}: the token is shown only this once.
 */
export async function createGame({ seat, opponent, rules, start, timeControl, rated }) {
  const body = { seat, opponent, rules };
  // Sent only when set: a server without time controls refuses the field.
  if (start) body.start = start;
  if (timeControl) body.timeControl = timeControl;
  if (rated) body.rated = true;
  const data = await call('POST', '/v1/games', { body, asPlayer: true });
  return { game: gameView(data.game), token: data.token, seat: data.seat || seat };
}

/**
 * Takes the other seat of a game against a person (once; then 409
 * seat_taken): {game, token, seat}. asPlayer: the seat is this browser's
 * player's (a rated game needs one); false for the second person at one
 * screen, who is not.
 */
export async function joinGame(id, asPlayer = true) {
  const data = await call('POST', `/v1/games/${enc(id)}/join`, { asPlayer });
  return { game: gameView(data.game), token: data.token, seat: data.seat };
}

/** The game now; conditional on its ETag, so polling an unchanged game is cheap. */
export async function getGame(id) {
  return gameView(await call('GET', `/v1/games/${enc(id)}`, { conditional: true }));
}

/** The moves from ply `from` (0 is the first move) on, each with its legs and capture, every page of them. */
export async function gameMoves(id, from = 0) {
  const out = [];
  for (let next = from; next !== null && next !== undefined; ) {
    const data = await call('GET', `/v1/games/${enc(id)}/moves`, { query: { from: next, limit: 1000 } });
    out.push(...data.moves.map(moveView));
    next = data.nextFrom;
  }
  return out;
}

/**
 * The seat token kept for a seat that is this browser's player's own, taken
 * in the lobby: the server made no seat token for it, and the seat acts
 * with the player's Player-Token instead.
 */
export const PLAYER_SEAT = 'player';

// How a request acts for a seat: its token, or the player's (PLAYER_SEAT).
const seat = (token) => (token === PLAYER_SEAT ? { asPlayer: true } : { token });

/**
 * Plays pit for the seat whose token is given (PLAYER_SEAT: the player's seat), at the game's current ply
 * (game.ply). Answers {move, reply, game}: reply is the AI's answering move,
 * already played, or null. A lost answer is sent again once: the server
 * answers a repeated accepted request (same token, ply and pit) with the
 * stored answer, never a second move. 409 stale_ply: the game moved on.
 */
export async function playMove(id, token, pit, ply) {
  const send = () => call('POST', `/v1/games/${enc(id)}/moves`, { ...seat(token), body: { pit, ply } });
  let data;
  try {
    data = await send();
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 0) throw err;
    data = await send();
  }
  return { move: moveView(data.move), reply: data.reply ? moveView(data.reply) : null, game: gameView(data.game) };
}

/** Resigns for the token's seat: the other side wins. Answers the finished game. */
export async function resign(id, token) {
  return gameView(await call('POST', `/v1/games/${enc(id)}/resign`, seat(token)));
}

/**
 * Asks for a finished game's engine review (the server computes it once, in
 * the background) and answers it as it stands: {state: queued|running|done,
 * progress: {done, total}, review?: {plies, south, north}}.
 */
export async function requestReview(id) {
  return call('POST', `/v1/games/${enc(id)}/review`);
}

/** A game's review as it stands, once asked for (see requestReview). */
export async function getReview(id) {
  return call('GET', `/v1/games/${enc(id)}/review`);
}

/**
 * Offers a draw for the token's seat, or accepts the other side's standing
 * offer (offer true); refuses the other side's offer or withdraws one's own
 * (offer false). Answers the game: its offers, or the draw by agreement.
 */
export async function offerDraw(id, token, offer) {
  return gameView(await call('POST', `/v1/games/${enc(id)}/draw`, { ...seat(token), body: { offer } }));
}

/**
 * Asks to take back the token's seat's last move (and the reply after it),
 * or accepts the other side's request (offer true); refuses or withdraws
 * (offer false). Unrated games only (403 takeback_rated). Answers the game.
 */
export async function offerTakeback(id, token, offer) {
  return gameView(await call('POST', `/v1/games/${enc(id)}/takeback`, { ...seat(token), body: { offer } }));
}

/**
 * The events of a game's stream: `joined` (data: the Game), `move` (data: the
 * GameMove; id: the ply after it) and `end` (data: the finished Game), `offer` and `offerDeclined` (data:
 * the Game, its offers), `takeback` (data: the Game at the ply it went back
 * to). Each means "the game changed".
 */
export const gameEventNames = ['joined', 'move', 'end', 'offer', 'offerDeclined', 'takeback'];

/**
 * Follows the game's Server-Sent Events. onChange(event) is called for every
 * event; the browser reconnects by itself (sending Last-Event-ID). Returns a
 * function that closes the stream.
 */
export function followGame(id, onChange, onError) {
  const es = new EventSource(`/v1/games/${enc(id)}/events`);
  const handler = (ev) => {
    let data = null;
    try { data = ev.data ? JSON.parse(ev.data) : null; } catch { data = null; }
    onChange({ type: ev.type, id: ev.lastEventId, data });
  };
  for (const name of gameEventNames) es.addEventListener(name, handler);
  if (onError) es.onerror = onError;
  return () => es.close();
}

// ---- Daily puzzles ----

export async function dailyPuzzle(date) {
  const path = date ? `/v1/puzzles/daily/${enc(date)}` : '/v1/puzzles/daily';
  return puzzleView(await call('GET', path, { conditional: true }));
}

export async function puzzle(id) {
  return puzzleView(await call('GET', `/v1/puzzles/${enc(id)}`, { conditional: true }));
}

/**
 * A practice puzzle: {difficulty, goal} filter it (empty: any); after is the
 * id of the practice puzzle shown, for the next one of its sequence (the
 * same filter), so that "another" never repeats one. near: the difficulty
 * is chosen around this browser's player's puzzle rating instead, passing
 * over puzzles the player has tried.
 */
export async function practicePuzzle({ difficulty, goal, after, near = false } = {}) {
  if (near) {
    return puzzleView(await call('GET', '/v1/puzzles/practice', { query: { near: 'me', goal, after }, asPlayer: true }));
  }
  return puzzleView(await call('GET', '/v1/puzzles/practice', { query: { difficulty, goal, after } }));
}

/** The filter a practice puzzle's id was made with: {difficulty, goal} ('' for any), or null for another kind of id. */
export function practiceFilter(id) {
  const m = /^x[0-9]+-d([0-5])-g([a-z_]+)-t([a-z_]+)-[0-9]+$/.exec(id || '');
  if (!m) return null;
  return { difficulty: m[1] === '0' ? '' : m[1], goal: m[2] === 'any' ? '' : m[2], theme: m[3] === 'any' ? '' : m[3] };
}

/** Newest first: {puzzles, next} where next is the `before` of the page of older ones (or null). */
export async function puzzleArchive(before, limit = 10) {
  const data = await call('GET', '/v1/puzzles', { query: { before, limit } });
  return { puzzles: data.puzzles.map(puzzleView), next: data.next || null };
}

/**
 * Tries a line as this browser's player: moves are the solver's own pits in
 * order (the server plays the replies). Answers {correct, complete,
 * explanation, solution, stats, rated, rating}: explanation holds every
 * move's outcome, the replies included (reply: true), up to the first wrong
 * move and the reply that refutes it; solution is the whole line after
 * giveUp or once solved, else null; rated says this was the player's first
 * attempt at the puzzle, which moved the ratings in rating ({player,
 * puzzle}, each a RatingChange {before, after, change}; null when not rated).
 */
export async function attemptPuzzle(id, moves, giveUp = false) {
  const body = giveUp ? { moves, giveUp: true } : { moves };
  const data = await call('POST', `/v1/puzzles/${enc(id)}/attempts`, { body, asPlayer: true });
  return {
    correct: data.correct,
    complete: data.complete,
    explanation: data.explanation.map(moveView),
    solution: data.solution ? data.solution.map(moveView) : null,
    stats: data.stats,
    rated: !!data.rated || !!data.rating,
    rating: data.rating || null,
  };
}

/** The whole solution line, each move with its outcome (reading it is not an attempt). */
export async function puzzleSolution(id) {
  const data = await call('GET', `/v1/puzzles/${enc(id)}/solution`);
  return data.solution.map(moveView);
}

// ---- Players, ratings, leaderboards ----

/** The rating categories, in the order pages show them. */
export const CATEGORIES = ['live', 'correspondence', 'puzzle'];

/**
 * Makes a player, named name or (none) by the server: {player, token}. The
 * token is shown only this once; keep it, it is the player.
 */
export async function createPlayer(name) {
  const data = await call('POST', '/v1/players', { body: name ? { name } : {} });
  return { player: playerView(data.player), token: data.token };
}

/** Anyone's player: {id, name, createdAt, ratings, counts, streak}. */
export async function getPlayer(id) {
  return playerView(await call('GET', `/v1/players/${enc(id)}`));
}

/** Renames one's own player (token is its Player-Token); answers the player. */
export async function renamePlayer(id, token, name) {
  return playerView(await send('PATCH', `/v1/players/${enc(id)}`, { body: { name }, playerToken: token }));
}

/**
 * A page of a player's finished games, newest first: {games, next}, next
 * the cursor of the page after (null at the end). Each game:
 * {gameId, endedAt, side, category, rated, result, opponent, ai, rating}.
 */
export async function playerGames(id, { after, limit, category, result } = {}) {
  const data = await call('GET', `/v1/players/${enc(id)}/games`, { query: { after, limit, category, result } });
  return { games: data.games || [], next: data.next || null };
}

/**
 * A page of a player's first attempts at puzzles, newest first: {attempts,
 * next, streak}. Each attempt: {puzzleId, at, solved, daily, rating}.
 */
export async function playerPuzzles(id, { after, limit } = {}) {
  const data = await call('GET', `/v1/players/${enc(id)}/puzzles`, { query: { after, limit } });
  return { attempts: data.attempts || [], next: data.next || null, streak: data.streak || 0 };
}

/** The best players of a category: [{rank, id, name, rating, deviation, games}]. */
export async function leaderboard(category) {
  const data = await call('GET', `/v1/leaderboards/${enc(category)}`);
  return data.players || [];
}

// ---- The lobby: seeks, the player's event stream, rematches ----

/**
 * Posts a seek as this browser's player: {timeControl, rated, seat}.
 * Answers the Seek {id, status, timeControl, rated, seat, game, side}: when
 * a compatible open seek was there, it is matched already, with its game
 * and the player's side; else open, listed in the lobby.
 */
export async function createSeek({ timeControl, rated = false, seat: side = 'random' }) {
  return call('POST', '/v1/seeks', { body: { timeControl, rated, seat: side }, asPlayer: true });
}

/** Cancels one's own open seek (409 seek_closed once matched: it has its game). */
export async function cancelSeek(id) {
  const answer = await call('DELETE', `/v1/seeks/${enc(id)}`, { asPlayer: true });
  playerStream.standing.delete(`s:${id}`); // the player's stream says nothing of it
  return answer;
}

/** The open seeks, newest first: [{id, player: {id, name}, rating, provisional, timeControl, rated, seat}]. */
export async function lobby() {
  const data = await call('GET', '/v1/lobby', { query: { limit: 200 } });
  return data.seeks || [];
}

/**
 * Follows the lobby's Server-Sent Events: onEvent({type, data}) for each
 * `seekAdded` (data: {seek}, the LobbySeek) and `seekRemoved` (data: {id}). The
 * browser reconnects by itself. Returns a function that closes the stream.
 */
export function followLobby(onEvent) {
  const es = new EventSource('/v1/lobby/events');
  const handler = (ev) => {
    let data = null;
    try { data = ev.data ? JSON.parse(ev.data) : null; } catch { data = null; }
    onEvent({ type: ev.type, data });
  };
  for (const name of ['seekAdded', 'seekRemoved']) es.addEventListener(name, handler);
  return () => es.close();
}

/** The events of a player's stream this client listens to. */
export const playerEventNames = ['gameStart', 'gameFinish', 'challenge', 'challengeCanceled', 'challengeDeclined', 'seekMatched', 'seekExpired', 'seek', 'tournamentGame'];

/**
 * Follows this browser's player's own event stream: onEvent({type, data})
 * for each event. Returns a function that stops following.
 *
 * A page holds one stream however many parts of it follow (the challenges
 * banner, the lobby, a game): browsers keep few connections to one server
 * over HTTP/1.1 (six), and every stream holds one for as long as it is
 * open. A part that follows later hears first how things stand, as a new
 * connection would tell it (a gameStart for each game in play, a challenge
 * for each pending challenge, a seek for each open seek), kept up to date
 * by the events since.
 *
 * An EventSource cannot send the Player-Token, so each connection asks
 * first for a single-use ticket; as a ticket opens one connection only, a
 * dropped stream is opened again here with a fresh ticket, not by the
 * browser; the new connection starts with how things stand again.
 */
export function followPlayer(onEvent) {
  const s = playerStream;
  const follower = { onEvent };
  s.followers.add(follower);
  const standing = [...s.standing.values()];
  if (standing.length) {
    queueMicrotask(() => {
      for (const ev of standing) if (s.followers.has(follower)) onEvent(ev);
    });
  }
  if (!s.es && !s.opening && !s.timer) openPlayerStream();
  return () => {
    s.followers.delete(follower);
    if (s.followers.size) return;
    clearTimeout(s.timer);
    s.timer = null;
    if (s.es) s.es.close();
    s.es = null;
    s.standing.clear();
  };
}

// The page's one player stream: its followers, and how things stand (key →
// event) for a follower that comes later.
const playerStream = { es: null, opening: false, timer: null, followers: new Set(), standing: new Map() };

async function openPlayerStream() {
  const s = playerStream;
  s.timer = null;
  if (!s.followers.size) return;
  s.opening = true;
  let ticket;
  try {
    ticket = (await call('POST', '/v1/players/me/events/tickets', { asPlayer: true })).ticket;
  } catch {
    ticket = null;
  }
  s.opening = false;
  if (!s.followers.size) return;
  if (!ticket) {
    s.timer = setTimeout(openPlayerStream, 3000);
    return;
  }
  const es = new EventSource(`/v1/players/me/events?ticket=${enc(ticket)}`);
  s.es = es;
  es.onopen = () => s.standing.clear(); // the connection tells it afresh
  const handler = (ev) => {
    let data = null;
    try { data = ev.data ? JSON.parse(ev.data) : null; } catch { data = null; }
    const event = { type: ev.type, data };
    keepStanding(s.standing, event);
    for (const f of [...s.followers]) f.onEvent(event);
  };
  for (const name of playerEventNames) es.addEventListener(name, handler);
  es.onerror = () => {
    // The ticket is spent: reconnect with a fresh one, not the browser's way.
    es.close();
    if (s.es === es) s.es = null;
    if (s.followers.size && !s.timer) s.timer = setTimeout(openPlayerStream, 2000);
  };
}

/** Updates how things stand (games in play, pending challenges, open seeks) by an event. */
function keepStanding(standing, { type, data }) {
  if (!data) return;
  const c = data.challenge;
  if (type === 'gameStart' && data.gameId) standing.set(`g:${data.gameId}`, { type, data });
  if (type === 'gameFinish' && data.gameId) standing.delete(`g:${data.gameId}`);
  if (type === 'challenge' && c?.id && c.status === 'pending') standing.set(`c:${c.id}`, { type, data });
  if ((type === 'challengeCanceled' || type === 'challengeDeclined' || type === 'gameStart') && c?.id) standing.delete(`c:${c.id}`);
  if (type === 'seek' && data.seek?.id) standing.set(`s:${data.seek.id}`, { type, data });
  if ((type === 'seekMatched' || type === 'seekExpired') && data.seek?.id) standing.delete(`s:${data.seek.id}`);
}

/**
 * Asks for a rematch of a finished game between two players, as this
 * browser's player: the Challenge {id, status, game}: `pending` until the
 * opponent asks too, `accepted` (with the new game's id) when they had.
 */
export async function rematch(id) {
  return call('POST', `/v1/games/${enc(id)}/rematch`, { asPlayer: true });
}

// ---- Challenges: to a named player, answered from the player's stream ----

/**
 * Challenges player `to` as this browser's player: {timeControl, rated}.
 * Answers the Challenge {id, status: 'pending', from, to, timeControl,
 * rated, ...}; the challenged player hears of it on their event stream.
 */
export async function createChallenge({ to, timeControl, rated = false }) {
  return call('POST', '/v1/challenges', { body: { to, timeControl, rated }, asPlayer: true });
}

/** Accepts a challenge: the Challenge, `accepted`, with its `game`. */
export async function acceptChallenge(id) {
  return call('POST', `/v1/challenges/${enc(id)}/accept`, { asPlayer: true });
}

/** The reasons a challenge may be declined with (DeclineReason), in the order offered. */
export const DECLINE_REASONS = ['generic', 'later', 'tooFast', 'tooSlow', 'timeControl', 'rated', 'casual'];

/** Declines a challenge with one of DECLINE_REASONS: the Challenge, `declined`. */
export async function declineChallenge(id, reason = 'generic') {
  return call('POST', `/v1/challenges/${enc(id)}/decline`, { body: { reason }, asPlayer: true });
}

/** Withdraws one's own pending challenge. */
export async function cancelChallenge(id) {
  return call('DELETE', `/v1/challenges/${enc(id)}`, { asPlayer: true });
}

// ---- Tournaments: arenas and Swiss events ----

/** The statuses an event's list is asked by, in the order the page shows them. */
export const TOURNAMENT_STATUSES = ['running', 'upcoming', 'finished'];

/**
 * Creates an event this browser's player organises: {kind: 'arena'|'swiss',
 * name, timeControl (a clock), rated, startsAt (absent: now), minutes and
 * berserk (an arena), rounds (a Swiss event)}. Answers the Tournament.
 */
export async function createTournament({ kind, name, timeControl, rated = false, startsAt, minutes, rounds, berserk }) {
  const body = { kind, name, timeControl, rated };
  if (startsAt) body.startsAt = startsAt;
  if (kind === 'arena') {
    body.minutes = minutes;
    body.berserk = !!berserk;
  } else {
    body.rounds = rounds;
  }
  return call('POST', '/v1/tournaments', { body, asPlayer: true });
}

/**
 * A page of the events of one status (TOURNAMENT_STATUSES): {tournaments:
 * [{tournament, players}], next}, next the `after` of the page after (null
 * at the end).
 */
export async function tournaments(status, after) {
  const data = await call('GET', '/v1/tournaments', { query: { status, after, limit: 50 } });
  return { tournaments: data.tournaments || [], next: data.next || null };
}

/**
 * An event with a page of its standings: {tournament, players, games,
 * playing, page, perPage, standings: [{rank, player: {id, name}, rating,
 * points, games, wins, draws, losses, withdrawn, playing, sheet, onFire,
 * berserks, buchholz, sonnebornBerger, byes}]}.
 */
export async function getTournament(id, page = 1, perPage = 50) {
  return call('GET', `/v1/tournaments/${enc(id)}`, { query: { page, perPage } });
}

/** Enters this browser's player into the event: the TournamentEntry {joinedAt, joinedRound, withdrawn}. */
export async function joinTournament(id) {
  return call('POST', `/v1/tournaments/${enc(id)}/join`, { asPlayer: true });
}

/** Takes this browser's player out of the event's pairings: the TournamentEntry, withdrawn. */
export async function withdrawFromTournament(id) {
  return call('POST', `/v1/tournaments/${enc(id)}/withdraw`, { asPlayer: true });
}

/** The event's games in the order they were made: [{id, round, south, north, berserk, done, winner, aborted, plies, endedAt}]. */
export async function tournamentGames(id) {
  const data = await call('GET', `/v1/tournaments/${enc(id)}/games`);
  return data.games || [];
}

/**
 * Every line of the event's standings, best first (the NDJSON of
 * /results: one TournamentStanding a line), for what one page may not hold.
 */
export async function tournamentResults(id) {
  let res;
  try {
    res = await fetch(`/v1/tournaments/${enc(id)}/results`, { headers: { Accept: 'application/x-ndjson, application/problem+json' }, cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, { detail: 'The server cannot be reached: ' + err.message });
  }
  const text = await res.text();
  if (!res.ok) {
    let problem;
    try { problem = JSON.parse(text); } catch { problem = { detail: `${res.status} ${res.statusText}` }; }
    throw new ApiError(res.status, problem);
  }
  return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** The events of an event's stream; each means "read the event again". */
export const tournamentEventNames = ['started', 'paired', 'gameFinished', 'standings', 'finished'];

/**
 * Follows an event's Server-Sent Events: onEvent({type, data}) for each,
 * data {tournamentId, gameId?}, and {type: 'open'} each time the stream
 * connects: news from before it is not sent, so what was read before may
 * be stale. The browser reconnects by itself (with Last-Event-ID).
 * Returns a function that closes the stream.
 */
export function followTournament(id, onEvent) {
  const es = new EventSource(`/v1/tournaments/${enc(id)}/events`);
  es.onopen = () => onEvent({ type: 'open', data: null });
  const handler = (ev) => {
    let data = null;
    try { data = ev.data ? JSON.parse(ev.data) : null; } catch { data = null; }
    onEvent({ type: ev.type, data });
  };
  for (const name of tournamentEventNames) es.addEventListener(name, handler);
  return () => es.close();
}

/**
 * Goes berserk in an arena game as this browser's player, before its first
 * move: its clock halves, for a point more if it wins. Answers {game,
 * side, clockMs}; 409 berserk_not_possible once it has moved.
 */
export async function berserk(gameId) {
  return call('POST', `/v1/games/${enc(gameId)}/berserk`, { asPlayer: true });
}

// ---- Shapes: the API's answers as the page uses them ----

function playerView(p) {
  const none = { rating: null, deviation: null, games: 0, provisional: true };
  return {
    id: p.id,
    name: p.name,
    createdAt: p.createdAt,
    ratings: Object.fromEntries(CATEGORIES.map((c) => [c, p.ratings?.[c] || none])), // {rating, deviation, games, provisional}
    counts: p.counts || {}, // {games, wins, losses, draws, rated, puzzles, solved}
    streak: p.streak || 0, // days in a row with a daily puzzle solved
  };
}

function gameView(g) {
  return {
    id: g.id,
    position: g.position,
    start: g.start, // the position before the first move
    ply: g.ply, // moves played so far: the ply the next move names
    status: g.status, // waiting | active | finished | aborted (no result)
    result: g.result, // {winner, reason} or null
    rules: g.rules,
    seats: g.seats, // {south, north}: human | ai | open
    ai: g.ai, // {side, level} or null
    lastMove: g.lastMove, // {ply, side, pit} or null
    version: g.version,
    updatedAt: g.updatedAt, // when it last changed: for a game that is over, when it ended
    // Time, absent from a server without time controls: null for an untimed game.
    timeControl: g.timeControl || null, // {kind: 'clock', initialSeconds, incrementSeconds} | {kind: 'correspondence', daysPerMove}
    clock: g.clock || null, // {remainingMs: {south, north}, running: side|null, deadline: date-time|null}
    expiry: g.expiry || null, // {at, side: side|null, ends: 'timeout'|'abort'}: when the game ends by itself unless side moves
    // Players, absent from a server without them.
    rated: !!g.rated, // the result changes both players' ratings
    players: { south: g.players?.south || null, north: g.players?.north || null }, // SeatPlayer {id, name, rating, provisional, change} or null
    offers: { draw: g.offers?.draw || null, takeback: g.offers?.takeback || null }, // the side whose offer stands, or null
  };
}

// A game's move (GameMove) or a puzzle's step (PuzzleStep): what the board
// animates.
function moveView(m) {
  return {
    ply: m.ply, // games: 0 for the first move
    side: m.side, // games only; a puzzle step's mover is its position's toMove before it
    reply: m.reply, // puzzles: the opponent's answer
    byAi: m.byAi,
    pit: m.pit,
    legs: m.legs || [],
    capture: m.capture || null,
    position: m.position,
    result: m.result || null,
    elapsedMs: m.elapsedMs ?? null, // games with time: how long the move took
    clock: m.clock || null, // games: the clock after the move, null when untimed
  };
}

function puzzleView(p) {
  return {
    id: p.id,
    date: p.date, // null for a practice puzzle
    position: p.position,
    rules: p.rules || {},
    goal: p.goal,
    prompt: p.prompt,
    themes: p.themes || [],
    difficulty: p.difficulty,
    keyLegs: p.keyLegs,
    plies: p.plies,
    stats: p.stats || { attempts: 0, solved: 0 },
    rating: p.rating ?? null, // the puzzle's own rating
  };
}


// ---- OAuth: the authorization page (authorize.js) ----

/**
 * The player's approval of an app's request (clientId, redirectUri, scopes,
 * state, codeChallenge, codeChallengeMethod 'S256'): {code, redirectUri,
 * expiresAt}, where redirectUri carries the code back to the app. Only the
 * player's own token may approve, so it is given here, never a renewed one.
 */
export function approveAuthorization(playerToken, request) {
  return send('POST', '/v1/oauth/authorizations', { body: request, playerToken });
}
