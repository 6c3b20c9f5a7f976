// The HTTP plumbing every call shares: base URL, bearer, language, JSON in and out, refusals.

/** A refusal of the API (problem+json): its HTTP status, stable `code` and the whole problem. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Record<string, unknown>;

  constructor(status: number, problem: Record<string, unknown>) {
    const code = typeof problem.code === "string" ? problem.code : "";
    super(`${status} ${code || "error"}: ${typeof problem.detail === "string" ? problem.detail : ""}`);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.problem = problem;
  }
}

/** Whether `error` is the network failing (no answer at all), rather than a refusal. */
export function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError;
}

/** How a client reaches the API. */
export interface Transport {
  /** The API's origin, without a trailing slash, e.g. `http://127.0.0.1:8000`. */
  readonly baseUrl: string;
  /** `en` or `es`: the language of the events' and moves' sentences (a function is asked on each call). */
  readonly language?: string | (() => string);
  /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
  readonly fetch?: typeof fetch;
}

/** Options of one call. */
export interface CallOptions {
  /** A seat, host or player token, sent as a bearer. */
  token?: string | null;
  /** A JSON body. */
  body?: unknown;
  /** An `Idempotency-Key`: the same key retried is applied once. */
  key?: string;
  /** Query parameters (undefined values are left out). */
  query?: Record<string, string | number | boolean | undefined>;
  /** Extra headers. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A fresh idempotency key. */
export function newKey(): string {
  return globalThis.crypto.randomUUID();
}

export function languageOf(transport: Transport): string | undefined {
  const { language } = transport;
  return typeof language === "function" ? language() : language;
}

/** The URL of `path` (which starts with `/`) with its query. */
export function urlOf(transport: Transport, path: string, query: CallOptions["query"] = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return `${transport.baseUrl.replace(/\/+$/, "")}${path}${text ? `?${text}` : ""}`;
}

/** The headers of a call: bearer, language, body type, idempotency key. */
export function headersOf(transport: Transport, options: CallOptions): Record<string, string> {
  const headers: Record<string, string> = { ...options.headers };
  const language = languageOf(transport);
  if (language) headers["Accept-Language"] = language;
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.key) headers["Idempotency-Key"] = options.key;
  return headers;
}

/** One API call: the parsed JSON answer (`undefined` for an empty one), or an `ApiError`. */
export async function call<T = unknown>(
  transport: Transport,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<T> {
  const fetcher = transport.fetch ?? globalThis.fetch;
  const response = await fetcher(urlOf(transport, path, options.query), {
    method,
    headers: headersOf(transport, options),
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  const text = await response.text();
  const answer = text ? JSON.parse(text) : undefined;
  if (!response.ok) throw new ApiError(response.status, answer && typeof answer === "object" ? answer : {});
  return answer as T;
}
