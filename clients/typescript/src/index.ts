// The Ayoayo API's TypeScript client: openapi-fetch over the types
// openapi-typescript generates from openapi.yaml (schema.ts, committed and
// checked in CI against the document). Every path, body, parameter and
// answer is typed; an answer that is not a 2xx comes back as `error`, the
// RFC 9457 problem the server sent.

import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };

/** The client: `GET`, `POST`, ... over the API's paths, typed. */
export type AyoayoClient = Client<paths>;

/** Shorthands for the schemas a front end handles most. */
export type Schemas = components["schemas"];
export type Position = Schemas["Position"];
export type Rules = Schemas["Rules"];
export type Game = Schemas["Game"];
export type Problem = Schemas["Problem"];

/**
 * A client of the server at baseUrl (such as "https://ayoayo.example"),
 * with openapi-fetch's options (fetch, headers, ...) besides.
 */
export function createAyoayoClient(baseUrl: string, options: Omit<ClientOptions, "baseUrl"> = {}): AyoayoClient {
  return createClient<paths>({ ...options, baseUrl });
}

/** The header a seat's token goes in: `Authorization: Bearer TOKEN`. */
export function seatAuth(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}
