// Types of allowed-skips.mjs, for the test that holds scripts/test.mjs to it.
export interface AllowedSkip {
  file: string;
  test: RegExp;
  reason: 'a GPU' | 'the Electron binary';
}
export interface VitestJsonReport {
  testResults?: Array<{ name: string; assertionResults?: Array<{ fullName: string; status: string }> }>;
}
export const ALLOWED_SKIPS: AllowedSkip[];
export function allowedSkip(file: string, fullName: string, list?: AllowedSkip[]): AllowedSkip | undefined;
export function unlistedSkips(report: VitestJsonReport, root: string, list?: AllowedSkip[]): string[];
