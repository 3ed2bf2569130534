// Types of battlehall.js, the Battlehall client library (docs/protocol.md is the wire contract).

export const JSON_SUBPROTOCOL: "battlehall.v1.json";

/** Any wire message: a map with its type in `t`. */
export interface Message {
  t: string;
  [field: string]: any;
}

export interface PromptOption {
  id: string;
  text: string;
  /** Every value each argument may take. */
  args?: Record<string, any[]>;
  /** When arguments depend on each other: the combinations that go together. */
  combos?: Record<string, any[]>[];
}

/** A prompt as its own seat sees it; others see only id, seat, kind, window, time_ms, bank, deadline, bank_ms. */
export interface Prompt {
  id: string;
  seat: string;
  kind: string;
  text?: string;
  options?: PromptOption[];
  default?: string;
  window?: string;
  time_ms?: number;
  bank?: boolean;
  /** Server clock, epoch ms (compare with client.serverNow()). */
  deadline?: number;
  bank_ms?: number;
}

export interface MatchEvent {
  t: "event";
  seq: number;
  at: number;
  kind: string;
  data: any;
}

export interface Result {
  winners: string[];
  ranking: string[][];
  draw: boolean;
  reason: string;
  winner: string | null;
  [field: string]: any;
}

export interface Welcome {
  t: "welcome";
  match: string;
  role: "player" | "spectator" | "caster" | "judge";
  seat: string | null;
  seq: number;
  view: any;
  /** A caster's: every seat's view, by seat (null before the start is the caster delay old). */
  views?: Record<string, any> | null;
  prompts: Prompt[];
  now: number;
  delay_ms?: number;
  /** What the match defines once and no view repeats, by the ruleset's names (spellfire:
   * `custom_cards`, a setup's inline card definitions); `{}` when it defines nothing. */
  definitions: { [name: string]: any };
  /** Seats whose player has no socket on the match, each with when it is marked away
   * (the server's clock); not sent to a delayed stream. */
  gone?: Record<string, number | null>;
}

/** A seat's player left (the last socket closed) or is back; never logged. */
export interface Presence {
  t: "presence";
  seat: string;
  connected: boolean;
  /** When the seat is marked away if nobody comes back (null once back). */
  away_at: number | null;
}

export interface ViewMessage {
  t: "view";
  seq: number;
  view: any;
  prompts: Prompt[];
  now: number;
  delay_ms?: number;
}

/** What an answer spent of its clock (docs/protocol.md, Lag). */
export interface ClockRecord {
  used_ms: number;
  lag_ms: number;
  bank_ms: number;
  away_ms?: number;
}

export interface Ack {
  t: "ack";
  id: string;
  seq: number;
  /** On an answer's ack: what it spent of its clock. */
  clock?: ClockRecord;
}

export interface PromptClosed {
  id: string;
  seat: string;
  reason: "answered" | "timeout" | "cancelled";
}

export type Status = "connecting" | "open" | "reconnecting" | "closed";
/** Which window prompts a seat is asked; the server passes the others (docs/protocol.md, Stops). */
export type StopsMode = "ask" | "pass_unless_playable" | "pass_until_my_turn";
export const STOP_MODES: StopsMode[];

export interface StatusDetail {
  reason?: string;
  code?: number | string;
  /** When reconnecting: the pause before the next attempt. */
  retryInMs?: number;
  url?: string;
}

/** How messages are put in frames. jsonCodec is built in; MessagePack can be plugged in. */
export interface Codec {
  subprotocol: string;
  binary: boolean;
  encode(message: Message): string | Uint8Array;
  decode(data: string | ArrayBuffer | Uint8Array): Message;
}

export const jsonCodec: Codec;

export interface ClientOptions {
  /** ws(s)://host/ws/<match>, or an http(s)/ws(s) server address with `match`. */
  url: string;
  match?: string;
  /** A seat token or the spectator token; null or absent to watch a public match. */
  token?: string | null;
  codec?: "json" | Codec;
  /** true (default): resume from the last seq after a reconnect; a number: also on the first hello (0: whole history); false: never. */
  resume?: boolean | number;
  /** The role the token must give, sent in `hello`; another is refused with `wrong_role`. */
  role?: "player" | "spectator" | "caster" | "judge";
  /** Ask for `batch` messages (handled either way). */
  batch?: boolean;
  /** Reconnect after a drop (default true). */
  reconnect?: boolean;
  /** Reconnect pause: doubles from min to max, with jitter. Defaults 50 and 5000. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** An act with no answer this long is sent again, same id. Default 10000. */
  ackTimeoutMs?: number;
  /** A socket with no welcome this long after opening is dropped and retried. Default 10000. */
  helloTimeoutMs?: number;
  /** Send a ping this often; a socket silent through two of them is dropped and retried. Default 15000, 0 = off. */
  keepAliveMs?: number;
  /** Stop retrying (status "closed", code "network") after being unable to reconnect this long. Default Infinity. */
  giveUpMs?: number;
  /** A WebSocket constructor, where there is no global one. */
  WebSocket?: any;
}

export interface ClientEvents {
  welcome: (welcome: Welcome) => void;
  event: (event: MatchEvent) => void;
  view: (view: ViewMessage) => void;
  /** A prompt for this seat opened (the full object, options included); also, after the
   * welcome, each open prompt of the welcome that was not known before. */
  prompt: (prompt: Prompt) => void;
  /** One of this seat's prompts closed. */
  prompt_closed: (closed: PromptClosed) => void;
  ack: (ack: Ack) => void;
  error: (error: BattlehallError) => void;
  status: (status: Status, detail: StatusDetail) => void;
  ended: (result: Result) => void;
  /** The seat's stops, as the server tells it (after setStops, from another device, or
   * when pass_until_my_turn ends). */
  stops: (mode: StopsMode) => void;
  /** A seat's player left or is back (`gone` is up to date when this fires). */
  presence: (presence: Presence) => void;
  /** Every message received, before it is handled. */
  message: (message: Message) => void;
}

export class BattlehallError extends Error {
  constructor(code: string, message?: string, extra?: Record<string, any>);
  /** The wire or HTTP error code (`unauthorized`, `not_found`, ...), or `network`, `closed`. */
  code: string;
  /** The act id the error answers, when it answers one. */
  id?: string;
  /** HTTP status, for errors of request(). */
  status?: number;
  /** The request field at fault (HTTP 400). */
  path?: string;
  /** For `not_here`: where the match is served. */
  redirect?: string;
  /** The close code that ended the session, if one did. */
  closeCode?: number;
}

export class BattlehallClient {
  constructor(options: ClientOptions);
  /** Where the next connection goes (a `not_here` redirect changes it). */
  url: string;
  /** The address started from: used again when a redirect's node cannot be reached. */
  homeUrl: string;
  token: string | null;
  /** Last event seq handled; null before the first welcome. */
  seq: number | null;
  seat: string | null;
  role: "player" | "spectator" | "caster" | "judge" | null;
  match: string | null;
  /** This seat's open prompts, by id. */
  prompts: Map<string, Prompt>;
  /** The latest view (from the welcome or a view answer) and its seq. */
  view: any;
  viewSeq: number | null;
  /** The welcome's `definitions`: sent once per socket, never in a view. */
  definitions: { [name: string]: any };
  /** Seats whose player has no socket on the match, with when each is marked away. */
  gone: Record<string, number | null>;
  result: Result | null;
  delayMs: number | null;
  status: Status;
  clockOffsetMs: number;
  reconnects: number;
  /** Acts sent more than once (same id). */
  resent: number;
  readonly pendingActs: Message[];
  /** This seat's stops mode ("ask" until set). */
  stops: StopsMode;

  on<K extends keyof ClientEvents>(name: K, fn: ClientEvents[K]): () => void;
  off<K extends keyof ClientEvents>(name: K, fn: ClientEvents[K]): void;
  /** Resolves with the first welcome; rejects when refused for good or after giveUpMs. */
  connect(): Promise<Welcome>;
  /** Answer a prompt; resolves with its ack, rejects when refused for good. */
  act(promptId: string, optionId: string, args?: Record<string, any>): Promise<Ack>;
  /** Resign this seat: a loss for it; with more seats, the others play on. */
  resign(): Promise<Ack>;
  /** Claim the win while another seat is away, where the match allows it (`no_claim` otherwise). */
  claimWin(): Promise<Ack>;
  /** A fresh view; at most one request in flight, calls meanwhile share the next answer.
   * If the client is closed first: the last view it had. */
  requestView(): Promise<ViewMessage>;
  /** Set this seat's stops: sent now, and again after every welcome. */
  setStops(mode: StopsMode): void;
  /** Whether the server passes this open prompt for the seat, by its stops. */
  passedForMe(prompt: Prompt): boolean;
  /** The server's clock, epoch ms. */
  serverNow(): number;
  /** Stop reconnecting and close. Acts already sent get their answer first (up to 2 s:
   * the last answer of a match is acknowledged after match_ended); then any left are rejected. */
  close(reason?: string): void;
}

/** A sentence a person understands for an error code. */
export function explain(code: string, fallback?: string): string;

/** The socket URL of a match on a server. */
export function wsUrl(base: string, matchId: string): string;

/** An HTTP API call: the JSON body, or throws BattlehallError (code, message, status, path). */
export function request(base: string, path: string,
                        options?: { method?: string; body?: any; apiKey?: string; signal?: AbortSignal }): Promise<any>;

/** A legal answer from a prompt's options: the option (default: the first), first combo, first values. */
export function firstAnswer(prompt: Prompt, optionId?: string): { option: string; args: Record<string, any> };

/** An event as `GET /tournaments/{id}` answers it (docs/tournaments.md). */
export interface Tournament {
  tournament: string;
  name: string;
  status: "registering" | "running" | "finished" | "cancelled";
  /** The number of entries of its log: a long poll's `waitSince`. */
  version: number;
  round: number;
  created_at: number;
  seed_commitment: string;
  organiser: { profile: string; name: string; tag: string } | null;
  spec: Record<string, any>;
  players: { player: string; name: string; tag: string; rating: number; checked_in: boolean; dropped: boolean }[];
  rounds: any[];
  standings: any[];
  bracket: any[];
  now: number;
  [field: string]: any;
}

/** A player's own entry: `GET /tournaments/{id}/my`. */
export interface TournamentEntry {
  tournament: string;
  profile: string;
  registered: boolean;
  checked_in: boolean;
  dropped: boolean;
  status: Tournament["status"];
  /** Grows with the log and when the player's table is made. */
  version: number;
  round: number;
  bye: boolean;
  table: null | {
    round: number; table: number; game: number; match: string; seat: string;
    /** The seat's secret: never show it to anyone else. */
    token: string;
    ws: string; ws_url: string | null;
    /** The seat's link: /play/{match}#token=... */
    play: string;
    done: boolean;
  };
  now: number;
}

export interface TournamentCreated {
  tournament: string;
  /** Starts and cancels the event: shown once. */
  organiser_token: string;
  seed_commitment: string;
  status: "registering";
  version: number;
  url: string;
}

interface Waiting { waitSince?: number; waitMs?: number; signal?: AbortSignal }

/** The events' HTTP API; each call throws BattlehallError (code, message, status, path) when refused. */
export class TournamentApi {
  constructor(base?: string, apiKey?: string);
  base: string;
  apiKey?: string;
  create(body: Record<string, any>, proof?: string): Promise<TournamentCreated>;
  list(options?: { status?: "upcoming" | "running" | "finished"; limit?: number; cursor?: string }):
    Promise<{ tournaments: Tournament[]; next: string | null }>;
  get(id: string, options?: Waiting): Promise<Tournament>;
  log(id: string): Promise<{ tournament: string; spec: Record<string, any>; seed: string | null;
                             seed_commitment: string; status: string; version: number; entries: Record<string, any>[] }>;
  register(id: string, profile: string, proof: string): Promise<TournamentEntry>;
  checkIn(id: string, profile: string, proof: string): Promise<TournamentEntry>;
  drop(id: string, profile: string, proof: string): Promise<TournamentEntry>;
  my(id: string, profile: string, proof: string, options?: Waiting): Promise<TournamentEntry>;
  start(id: string, organiserToken?: string): Promise<Tournament>;
  cancel(id: string, organiserToken?: string): Promise<Tournament>;
}
