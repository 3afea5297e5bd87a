// The extension's background: the page panel asks, this worker calls Studio (the panel runs in
// the model hub's page and must never see the key). The first use without settings opens them.
import { callStudio, loadSettings } from './studio-api.js';

const HUB_API = 'https://civitai.com/api/v1';

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (!message || message.type !== 'studio') return false;
  handle(message).then(sendResponse, (err) => sendResponse({ ok: false, status: 0, body: { detail: String(err?.message ?? err) } }));
  // The answer comes asynchronously.
  return true;
});

async function handle(message) {
  const settings = await loadSettings();
  if (!settings) {
    await chrome.runtime.openOptionsPage();
    return { setup: true };
  }
  const id = (value) => {
    if (!/^\d+$/.test(String(value ?? ''))) throw new Error('This page does not name a model hub id');
    return String(value);
  };
  switch (message.action) {
    case 'lookup':
      return callStudio(settings, 'GET', `/api/admin/modelhub/image/${id(message.imageId)}`);
    case 'add': {
      const versionId = message.versionId ? id(message.versionId) : await latestVersion(id(message.modelId));
      return callStudio(settings, 'POST', `/api/admin/modelhub/add/${versionId}`);
    }
    case 'preset':
      return callStudio(settings, 'POST', `/api/admin/modelhub/image/${id(message.imageId)}/preset`, {});
    case 'ping':
      return callStudio(settings, 'GET', '/api/admin/system/uptime');
    default:
      throw new Error(`Unknown action ${message.action}`);
  }
}

/** A model page without `?modelVersionId=` shows its newest version: ask the hub which one that is. */
async function latestVersion(modelId) {
  const res = await fetch(`${HUB_API}/models/${modelId}`, { credentials: 'omit' });
  if (!res.ok) throw new Error(`The model hub did not describe model ${modelId} (${res.status})`);
  const model = await res.json();
  const version = model?.modelVersions?.[0]?.id;
  if (!version) throw new Error(`Model ${modelId} has no versions`);
  return String(version);
}
