// The panel on model hub image and model pages. It lives in a closed shadow root (the page's
// styles do not leak in, and the page's scripts cannot reach its buttons) and asks the service
// worker for everything: the Studio key never enters the page, only the answers the panel shows.
// Buttons act only on trusted clicks (a person's, not a script's `click()` or dispatched event),
// so a hostile page cannot make presets or catalog entries in Studio. The hub is a single-page
// app, so URL changes are watched.
(() => {
  const host = document.createElement('div');
  host.id = 'studio-extension-panel';
  const root = host.attachShadow({ mode: 'closed' });
  root.innerHTML = `
    <style>
      :host { all: initial; }
      .panel { position: fixed; right: 16px; bottom: 16px; z-index: 2147483647; width: 320px; max-height: 60vh; overflow: auto;
        font: 13px/1.4 system-ui, sans-serif; color: #e8e8ef; background: #1d1e26; border: 1px solid #3a3b48; border-radius: 10px;
        box-shadow: 0 6px 24px rgba(0,0,0,.4); padding: 10px 12px; }
      h2 { font-size: 13px; margin: 0 0 8px; }
      button { font: inherit; color: #fff; background: #4b5bdc; border: 0; border-radius: 6px; padding: 5px 9px; margin: 0 6px 6px 0; cursor: pointer; }
      button:disabled { opacity: .6; cursor: default; }
      .out { white-space: pre-wrap; word-break: break-word; margin-top: 4px; }
      .err { color: #ff9b9b; }
      ul { padding-left: 16px; margin: 6px 0; }
    </style>
    <section class="panel" role="region" aria-label="Studio">
      <h2>Studio</h2>
      <div class="actions"></div>
      <div class="out" role="status" aria-live="polite"></div>
    </section>`;
  const actions = root.querySelector('.actions');
  const out = root.querySelector('.out');

  const target = () => {
    const image = /^\/images\/(\d+)/.exec(location.pathname);
    if (image) return { kind: 'image', imageId: image[1] };
    const model = /^\/models\/(\d+)/.exec(location.pathname);
    if (!model) return null;
    const version = new URLSearchParams(location.search).get('modelVersionId');
    return { kind: 'model', modelId: model[1], versionId: version && /^\d+$/.test(version) ? version : null };
  };

  const show = (text, isError = false) => {
    out.textContent = text;
    out.className = isError ? 'out err' : 'out';
  };

  async function ask(message) {
    const answer = await chrome.runtime.sendMessage({ type: 'studio', ...message });
    if (answer?.setup) throw new Error('Set your Studio address and API key first (the settings tab just opened).');
    if (!answer?.ok) throw new Error(answer?.body?.detail ?? `Studio answered ${answer?.status}`);
    return answer.body;
  }

  /** Run `handler` for a person's click only. */
  const onTrustedClick = (element, handler) =>
    element.addEventListener('click', (event) => {
      if (!event.isTrusted) return;
      void handler(event);
    });

  function button(label, run) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    onTrustedClick(b, async () => {
      b.disabled = true;
      show('Working…');
      try {
        await run();
      } catch (err) {
        show(err.message, true);
      } finally {
        b.disabled = false;
      }
    });
    actions.append(b);
    return b;
  }

  const addResult = (body) =>
    body.status === 'restricted' ? `Not added: ${body.reason}` : body.status === 'added' ? `Added “${body.name}” to ${body.category} (${body.file}).` : `Already in the catalog${body.file ? `: ${body.file}` : ''}.`;

  function showLookup(data) {
    out.className = 'out';
    out.replaceChildren();
    const meta = data.meta ?? {};
    const facts = ['seed', 'steps', 'sampler', 'cfgScale', 'Size'].filter((k) => meta[k] !== undefined).map((k) => `${k}: ${meta[k]}`);
    out.append(`Prompt: ${data.clean_prompt || '(none)'}\n${facts.join(' · ')}\n`);
    const list = document.createElement('ul');
    for (const r of data.resources ?? []) {
      const item = document.createElement('li');
      item.append(`${r.modelName ?? 'model'} — ${r.catalog_status === 'present' ? 'in Studio' : 'not in Studio'} `);
      if (r.catalog_status !== 'present' && r.versionId) {
        const add = document.createElement('button');
        add.type = 'button';
        add.textContent = 'Add';
        onTrustedClick(add, async () => {
          add.disabled = true;
          try {
            item.append(` ${addResult(await ask({ action: 'add', versionId: r.versionId }))}`);
          } catch (err) {
            item.append(` ${err.message}`);
          }
        });
        item.append(add);
      }
      list.append(item);
    }
    out.append(list);
  }

  let shownFor = null;
  function render() {
    const t = target();
    const key = t ? JSON.stringify(t) : null;
    if (key === shownFor) return;
    shownFor = key;
    actions.replaceChildren();
    show('');
    if (!t) {
      host.remove();
      return;
    }
    if (t.kind === 'image') {
      button('Look up generation data', async () => showLookup(await ask({ action: 'lookup', imageId: t.imageId })));
      button('Make a preset', async () => {
        const body = await ask({ action: 'preset', imageId: t.imageId });
        show(`Preset “${body.id}” saved in Studio${body.workflow_id ? ` (workflow ${body.workflow_id})` : ''}.`);
      });
    } else {
      button("Add to Studio's catalog", async () => show(addResult(await ask({ action: 'add', modelId: t.modelId, versionId: t.versionId }))));
    }
    if (!host.isConnected) document.documentElement.append(host);
  }

  render();
  // The hub changes pages without reloading; a second is quick enough for a person.
  setInterval(render, 1000);
})();
