/**
 * Whether "Improve prompt" can answer (the LLM status's `can_improve`), asked once for every field
 * of a page and again after half a minute: without an LLM the buttons are hidden instead of
 * answering 409 under every text field.
 */
import type { LlmApi } from '../../api/llm-api.js';

const FRESH_MS = 30_000;
let asked: { at: number; answer: Promise<boolean> } | null = null;

export function llmCanImprove(api: LlmApi): Promise<boolean> {
  if (!asked || Date.now() - asked.at > FRESH_MS) {
    asked = { at: Date.now(), answer: api.status().then((s) => s.can_improve === true, () => false) };
  }
  return asked.answer;
}
