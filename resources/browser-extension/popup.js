// Settings: Studio's address and API key, kept in extension storage. Saving asks Chrome for
// access to that address (only it, only now) and checks the key against Studio.
import { callStudio, loadSettings, saveSettings, studioOrigin } from './studio-api.js';

const form = document.getElementById('settings');
const status = document.getElementById('status');
const urlInput = document.getElementById('studio-url');
const keyInput = document.getElementById('api-key');

const say = (text, isError = false) => {
  status.textContent = text;
  status.className = isError ? 'err' : '';
};

async function init() {
  const settings = await loadSettings();
  if (!settings) {
    say('First use: enter the address of your Studio and its API key.');
    return;
  }
  urlInput.value = settings.studioUrl;
  keyInput.value = settings.apiKey;
  await test(settings);
}

async function test(settings) {
  const answer = await callStudio(settings, 'GET', '/api/admin/system/uptime');
  if (answer.ok) say(`Connected to Studio (running for ${Math.round(answer.body.uptime_seconds)} s).`);
  else say(answer.body.detail ?? `Studio answered ${answer.status}`, true);
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const origin = studioOrigin(urlInput.value);
    // Loopback is granted at install; a LAN address is asked for here, on the user's click.
    const granted = await chrome.permissions.request({ origins: [`${origin}/*`] });
    if (!granted) throw new Error(`Chrome did not allow the extension to reach ${origin}.`);
    await saveSettings(origin, keyInput.value);
    await test(await loadSettings());
  } catch (err) {
    say(err.message, true);
  }
});

init().catch((err) => say(err.message, true));
