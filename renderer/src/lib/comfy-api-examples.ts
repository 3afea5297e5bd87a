/**
 * The System page's copyable examples for the engine's API served by Studio (issue 44): one per
 * client library, pointed at this Studio, as the libraries' own READMEs write them.
 */

/** Where a client reaches the API: the path on Studio's port, and the port of its own if set. */
export interface ComfyApiAddress {
  /** `https://studio.lan:8000/comfy` */
  base: string;
  /** `studio.lan:8189` (COMFY_API_PORT), or null. */
  ownHost: string | null;
  secure: boolean;
}

export function comfyApiAddress(origin: string, path: string, port: number | null): ComfyApiAddress {
  const url = new URL(origin);
  return { base: `${url.origin}${path}`, ownHost: port === null ? null : `${url.hostname}:${port}`, secure: url.protocol === 'https:' };
}

/** `@saintno/comfyui-sdk`: the key as a Bearer token. */
export function sdkExample(address: ComfyApiAddress): string {
  return [
    `import { ComfyApi, CallWrapper, PromptBuilder } from "@saintno/comfyui-sdk";`,
    ``,
    `const api = new ComfyApi("${address.base}", undefined, {`,
    `  credentials: { type: "bearer_token", token: process.env.STUDIO_KEY },`,
    `}).init();`,
    `await api.waitForReady();`,
    `// then, as the SDK's README shows: new CallWrapper(api, new PromptBuilder(...)).onFinished(...).run();`,
  ].join('\n');
}

/** `@stable-canvas/comfyui-client`: opens its socket at `/ws` of the host, so it needs the port of its own. */
export function canvasExample(address: ComfyApiAddress): string {
  const host = address.ownHost ?? '<set COMFY_API_PORT: this library needs the API at the root of a port>';
  return [
    `import { Client, plugins } from "@stable-canvas/comfyui-client";`,
    `import WebSocket from "ws";`,
    ``,
    `const client = new Client({ api_host: "${host}", ssl: ${address.secure}, WebSocket, fetch });`,
    `client.use(new plugins.LoginAuthPlugin({ token: process.env.STUDIO_KEY }));`,
    `await client.connect();`,
    `const { images } = await client.enqueue(workflowInApiFormat);`,
  ].join('\n');
}
