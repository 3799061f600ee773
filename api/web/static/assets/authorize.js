// The OAuth authorization page (/oauth/authorize): an app sends the
// browser here with its client_id, redirect_uri, scope, state and PKCE
// code_challenge (S256). The player this browser keeps (store.js) sees the
// app, where the answer goes and the scopes, and approves (api.js asks the
// server for a single-use code and the redirect that carries it) or
// denies (the redirect carries error=access_denied, RFC 6749 4.1.2.1).
// Only the player's own token is sent, and only to this server: the app
// gets the code, never the token.

import * as api from './api.js';
import * as saved from './store.js';

// What each scope lets an app do, as openapi.yaml's oauth2 scheme says.
const SCOPES = {
  'game:play': 'play your games: create and join them, move, offer, take back, resign, claim and berserk',
  'lobby:write': 'use the lobby as you: seeks, challenges, rematches and your event stream',
  'puzzle:write': 'attempt puzzles as you',
  'tournament:write': 'create, join and withdraw from tournaments, and make bulk pairings',
  'profile:write': 'rename or delete your player',
};

const $ = (id) => document.getElementById(id);

function say(text, problem = false) {
  $('status').textContent = text;
  $('status').className = problem ? 'problem' : '';
}

/** A redirect_uri this server takes: https, or http on a loopback host. */
function redirectOK(s) {
  let u;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  if (u.hash || u.username || !(u.protocol === 'https:' || (u.protocol === 'http:' && loopback))) return null;
  return u;
}

function back(redirect, params) {
  const u = new URL(redirect.href);
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  location.assign(u.href);
}

function main() {
  const q = new URLSearchParams(location.search);
  const clientId = q.get('client_id') || '';
  const state = q.get('state') || '';
  const redirect = redirectOK(q.get('redirect_uri') || '');
  // Without a client or a redirect this server takes, nobody is told:
  // the request stops here (RFC 6749 4.1.2.1).
  if (!clientId || !redirect) {
    say('This authorization request has no client_id, or a redirect_uri that is not https.', true);
    return;
  }
  const refuse = (error, description) => back(redirect, { error, error_description: description, state });
  if ((q.get('response_type') || 'code') !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
  if (q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(q.get('code_challenge') || '')) {
    return refuse('invalid_request', 'a PKCE code_challenge with code_challenge_method=S256 is required');
  }
  const scopes = [...new Set((q.get('scope') || '').split(' ').filter(Boolean))];
  if (!scopes.length || scopes.some((s) => !(s in SCOPES))) return refuse('invalid_scope', 'unknown or no scope');
  const me = saved.player();
  if (!me) {
    say('This browser has no player yet: open the Ayoayo client first, then come back to this link.', true);
    return;
  }

  $('client').textContent = clientId;
  $('player').textContent = me.id;
  $('host').textContent = redirect.host;
  for (const s of scopes) {
    const li = document.createElement('li');
    li.textContent = `${s}: ${SCOPES[s]}`;
    $('scopes').append(li);
  }
  $('request').hidden = false;

  $('deny').addEventListener('click', () => refuse('access_denied', 'the player denied the request'));
  $('approve').addEventListener('click', async () => {
    $('approve').disabled = $('deny').disabled = true;
    say('Approving…');
    const body = {
      clientId,
      redirectUri: q.get('redirect_uri'),
      scopes,
      codeChallenge: q.get('code_challenge'),
      codeChallengeMethod: 'S256',
    };
    if (state) body.state = state;
    let answer;
    try {
      answer = await api.approveAuthorization(me.token, body);
    } catch (err) {
      say(err.detail || 'The server refused.', true);
      $('approve').disabled = err.status === 0 ? false : true;
      $('deny').disabled = false;
      return;
    }
    say('Approved; returning to the app…');
    location.assign(answer.redirectUri);
  });
}

main();
