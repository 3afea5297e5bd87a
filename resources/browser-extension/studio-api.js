// Shared by the service worker and the popup: the user's Studio address and key (extension
// storage, never page storage), calls to Studio with the key, and what a model hub URL points at.

/** The saved `{studioUrl, apiKey}`, or null before the first setup. */
export async function loadSettings() {
  const { studioUrl, apiKey } = await chrome.storage.local.get(['studioUrl', 'apiKey']);
  return typeof studioUrl === 'string' && studioUrl && typeof apiKey === 'string' && apiKey ? { studioUrl, apiKey } : null;
}

/** Save the settings (the address reduced to its origin). */
export async function saveSettings(studioUrl, apiKey) {
  await chrome.storage.local.set({ studioUrl: studioOrigin(studioUrl), apiKey: apiKey.trim() });
}

/** `http://host:port` of what the user typed; throws a readable error for anything else. */
export function studioOrigin(raw) {
  let url;
  try {
    url = new URL(/^https?:\/\//i.test(raw.trim()) ? raw.trim() : `http://${raw.trim()}`);
  } catch {
    throw new Error('Enter Studio\'s address, like http://192.168.1.10:8000');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('Studio\'s address starts with http:// or https://');
  return url.origin;
}

/** Call Studio: `{ok, status, body}` where body is the parsed JSON (or `{detail}` for other answers). */
export async function callStudio(settings, method, path, body) {
  let res;
  try {
    res = await fetch(settings.studioUrl + path, {
      method,
      headers: { 'X-API-Key': settings.apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    });
  } catch (err) {
    return { ok: false, status: 0, body: { detail: `Studio cannot be reached at ${settings.studioUrl} (${err.message}). Is it running, and is the address right?` } };
  }
  const text = await res.text();
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { detail: text.slice(0, 300) || res.statusText };
  }
  if (res.status === 401) parsed = { detail: 'Studio refused the API key: check it in the extension settings.' };
  return { ok: res.ok, status: res.status, body: parsed };
}
