// @vitest-environment happy-dom
import { mount } from '@vue/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent, h } from 'vue';
import { CLIENT_KEY } from '../../../renderer/src/api/context.js';
import { useLiveRefresh } from '../../../renderer/src/composables/useLiveRefresh.js';
import { harness, type Harness } from './harness.js';

let h0: Harness | null = null;
afterEach(async () => {
  await h0?.close();
  h0 = null;
});

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('useLiveRefresh', () => {
  it('loads on mount, again after each reconnect, and stops listening on unmount', async () => {
    h0 = await harness({});
    let loads = 0;
    const View = defineComponent({
      setup() {
        useLiveRefresh(() => {
          loads += 1;
        });
        return () => h('p', 'view');
      },
    });
    const wrapper = mount(View, { global: { provide: { [CLIENT_KEY as symbol]: h0.client } } });
    await flush();
    expect(loads).toBe(1);

    h0.socket().drop();
    h0.reconnect();
    h0.socket().open();
    await flush();
    expect(loads).toBe(2);

    wrapper.unmount();
    h0.socket().drop();
    h0.reconnect();
    h0.socket().open();
    await flush();
    expect(loads).toBe(2);
  });

  it('refetches when the tab becomes visible again', async () => {
    h0 = await harness({});
    let loads = 0;
    const View = defineComponent({
      setup() {
        useLiveRefresh(() => {
          loads += 1;
        });
        return () => h('p');
      },
    });
    const wrapper = mount(View, { global: { provide: { [CLIENT_KEY as symbol]: h0.client } } });
    await flush();
    document.dispatchEvent(new Event('visibilitychange'));
    await flush();
    expect(document.visibilityState).toBe('visible');
    expect(loads).toBe(2);
    wrapper.unmount();
  });
});
