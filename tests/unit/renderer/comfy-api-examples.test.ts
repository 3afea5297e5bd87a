/** The System page's examples for the engine API (issue 44): pointed at this Studio, the port library told when it needs COMFY_API_PORT. */
import { describe, expect, it } from 'vitest';
import { canvasExample, comfyApiAddress, sdkExample } from '../../../renderer/src/lib/comfy-api-examples.js';

describe('the engine API examples', () => {
  it('point the SDK at the path and the other library at the port of its own', () => {
    const address = comfyApiAddress('https://studio.lan:8000', '/comfy', 8189);
    expect(address).toEqual({ base: 'https://studio.lan:8000/comfy', ownHost: 'studio.lan:8189', secure: true });
    expect(sdkExample(address)).toContain('new ComfyApi("https://studio.lan:8000/comfy"');
    expect(canvasExample(address)).toContain('api_host: "studio.lan:8189", ssl: true');
  });

  it('say that the other library needs COMFY_API_PORT when none is set', () => {
    const address = comfyApiAddress('http://192.168.1.5:8000', '/comfy', null);
    expect(address.ownHost).toBeNull();
    expect(canvasExample(address)).toContain('set COMFY_API_PORT');
  });
});
