/**
 * The HTTP transport: same-origin requests with the session cookie, JSON in and out, and one
 * error type carrying the server's `{detail}`. A 401 means the session ended: the page goes to
 * the login page, which comes back here afterwards (`next`).
 */

/** An HTTP answer that was not 2xx, with the server's `detail` in words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** The whole JSON answer: the fields a route sends beside `detail` (a node install's `git_output`, a refused run's `missing_models`). */
    readonly body: unknown = null,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface HttpOptions {
  /** Defaults to the page's origin (empty prefix). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Called on a 401: by default the browser goes to `/login?next=<here>`. */
  onUnauthorized?: () => void;
}

/** Append a query string, leaving out empty values. */
function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export class Http {
  private readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly onUnauthorized: () => void;

  constructor(options: HttpOptions = {}) {
    this.baseUrl = options.baseUrl ?? '';
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    this.onUnauthorized = options.onUnauthorized ?? defaultUnauthorized;
  }

  /** An absolute (or same-origin) URL for links, `<img>` and `<video>`. */
  url(path: string, query?: Query): string {
    return this.baseUrl + withQuery(path, query);
  }

  /** GET and parse JSON. */
  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.request<T>('GET', this.url(path, query), undefined, signal);
  }

  /** POST a JSON body (or nothing) and parse JSON. */
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', this.url(path), body === undefined ? undefined : JSON.stringify(body));
  }

  /** PUT a JSON body and parse JSON. */
  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', this.url(path), JSON.stringify(body));
  }

  /** PATCH a JSON body and parse JSON. */
  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', this.url(path), JSON.stringify(body));
  }

  /** DELETE and parse JSON. */
  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', this.url(path));
  }

  /** POST multipart form data and parse JSON. */
  postForm<T>(path: string, form: FormData): Promise<T> {
    return this.request<T>('POST', this.url(path), form);
  }

  private async request<T>(method: string, url: string, body?: string | FormData, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (typeof body === 'string') headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchFn(url, { method, body, headers, credentials: 'same-origin', signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ApiError(0, 'Studio is not reachable. Check that it is running and that this device is on the same network.');
    }
    if (res.status === 401 && !url.includes('/api/auth/')) this.onUnauthorized();
    const text = await res.text();
    let parsed: unknown = undefined;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!res.ok) throw new ApiError(res.status, detailOf(parsed, res.status), parsed);
    return parsed as T;
  }
}

/** The server's `{detail}` as text (validation details may be objects). */
export function detailOf(body: unknown, status: number): string {
  if (body && typeof body === 'object' && 'detail' in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === 'string') return detail;
    return JSON.stringify(detail);
  }
  if (typeof body === 'string' && body.trim() && !body.trimStart().startsWith('<')) return body.trim().slice(0, 300);
  return `Request failed (HTTP ${status})`;
}

function defaultUnauthorized(): void {
  const here = location.pathname + location.search;
  location.assign(`/login?next=${encodeURIComponent(here)}`);
}
