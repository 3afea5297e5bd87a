/**
 * Download failures in words: what happened and what to do, instead of the network library's
 * text ("getaddrinfo ENOTFOUND …"). The server's own sentences (token, licence) pass through.
 */

export interface DownloadProblem {
  /** What happened, in one short sentence. */
  what: string;
  /** What the user can do about it. */
  todo: string;
}

const RULES: Array<{ test: RegExp; problem: DownloadProblem }> = [
  {
    test: /ENOTFOUND|EAI_AGAIN|getaddrinfo|ENETUNREACH|EHOSTUNREACH/i,
    problem: { what: 'Studio could not reach the download server (no internet connection, or its name did not resolve).', todo: 'Check the Studio machine’s internet connection; behind a proxy, set HTTPS_PROXY for Studio. Then retry.' },
  },
  {
    test: /ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket hang up|stalled|timed out/i,
    problem: { what: 'The connection to the download server broke off.', todo: 'Retry; the download resumes where it stopped. If it keeps failing, check the network or proxy.' },
  },
  {
    test: /certificate|SSL|TLS/i,
    problem: { what: 'The download server’s certificate was refused (often a proxy that inspects HTTPS).', todo: 'Ask whoever runs the network to allow the model hub and repository host, then retry.' },
  },
  {
    test: /licen[cs]e|gated|\b403\b/i,
    problem: { what: 'This model is gated: its licence has not been accepted for your account.', todo: 'Accept the licence on the model’s page, check the token in Settings, then retry.' },
  },
  {
    test: /\b401\b|token/i,
    problem: { what: 'The download server wants a token.', todo: 'Add the access token for this source in Settings, then retry.' },
  },
  {
    test: /\b404\b|not found/i,
    problem: { what: 'The file is no longer at its address.', todo: 'The catalog entry may be out of date: update the catalog or remove the entry.' },
  },
  {
    test: /ENOSPC|disk (is )?full|no space/i,
    problem: { what: 'The disk is full.', todo: 'Free some space (delete unused models), then retry.' },
  },
  {
    test: /hash|checksum|sha256/i,
    problem: { what: 'The downloaded file did not match its checksum.', todo: 'Retry; the damaged file was discarded.' },
  },
];

/** The server's error text as what happened and what to do. */
export function downloadProblem(error: string | null | undefined): DownloadProblem {
  const text = (error ?? '').trim();
  for (const rule of RULES) if (rule.test.test(text)) return rule.problem;
  return { what: text ? text.replace(/^Network error:\s*/i, '') : 'The download failed.', todo: 'Retry; if it keeps failing, see the activity log below.' };
}

/** "retrying 2 of 6" while the server retries, when it says how far it got. */
export function retryWords(retry: { attempt: number; of: number; reason?: string } | undefined): string | null {
  if (!retry || retry.attempt <= 0) return null;
  return retry.reason ? `retrying ${retry.attempt} of ${retry.of} · last attempt: ${retry.reason}` : `retrying ${retry.attempt} of ${retry.of}`;
}
