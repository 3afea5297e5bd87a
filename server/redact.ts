/**
 * The one way a secret is shown: masked as `abcd***wxyz`, in the settings page and in any message
 * made from an outside client's error (a URL in such a message can carry a bot token in its path
 * or a password before its host). Messages reach pages, events and `server.log`; none may carry a
 * secret whole.
 */

/** `abcd***wxyz`; values under 12 characters show nothing, since 8 shown characters would be most of them. */
export function maskSecret(value: string): string {
  if (!value) return '';
  return value.length < 12 ? '***' : `${value.slice(0, 4)}***${value.slice(-4)}`;
}

// `scheme://user:password@host`: the credentials part of any URL in a text.
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,20}:\/\/)[^\s/@:]{0,256}(?::[^\s/@]{0,256})?@/gi;

/** `text` with every one of `secrets` masked and every URL's credentials dropped. */
export function redactSecrets(text: string, secrets: Iterable<string | null | undefined> = []): string {
  let out = text.replace(URL_CREDENTIALS, '$1***@');
  for (const secret of secrets) {
    // A very short value would mask ordinary words; Studio refuses such tokens anyway.
    if (secret && secret.length >= 6) out = out.split(secret).join(maskSecret(secret));
  }
  return out;
}
