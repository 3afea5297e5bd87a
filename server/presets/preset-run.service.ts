/**
 * Placeholder questions of a preset and running a preset: the answers replace the placeholders,
 * the run's `seed` goes into every seed input, and the runner does the rest (the job records
 * `preset_id`).
 */
import { OWNER_ACTOR, type Actor } from '../http/actor.js';
import { DomainError } from '../domain-error.js';
import type { UploadedFile } from '../http/uploads.js';
import type { RunnerService } from '../jobs/runner.service.js';
import { EXISTING_INPUT_IMAGE_KEY } from '../workflows/params.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import { applyChoices, findPlaceholders, toQuestions, type LocatedPlaceholder } from '../contracts/placeholder-syntax.js';
import type { PlaceholderQuestion } from '../contracts/presets.contract.js';
import type { PresetsService } from './presets.service.js';

/** The multipart fields of `POST /{id}/run`, as text. */
export interface PresetRunRequest {
  seed?: string;
  answers?: string;
  existing_image?: string;
  input_image?: UploadedFile;
  /** Who runs it (the queue's fair share). */
  submitter?: string;
}

export class PresetRunService {
  constructor(private readonly deps: { presets: PresetsService; runner: RunnerService; workflows: WorkflowService }) {}

  /** `GET /{id}/placeholders`. */
  async placeholders(id: string, actor: Actor = OWNER_ACTOR): Promise<PlaceholderQuestion[]> {
    const preset = await this.deps.presets.get(id, actor);
    return toQuestions(findPlaceholders(preset.workflow.params));
  }

  /** `POST /{id}/run` → `{prompt_id, seeds}`. The job belongs to whoever runs it (a shared preset's included). */
  async run(id: string, request: PresetRunRequest, actor: Actor = OWNER_ACTOR): Promise<{ prompt_id: string; seeds: Record<string, number> }> {
    const preset = await this.deps.presets.get(id, actor);
    const seed = parseSeed(request.seed);
    const located = findPlaceholders(preset.workflow.params);
    const chosen = checkAnswers(located, parseAnswers(request.answers));
    const params = applyChoices(preset.workflow.params, located, chosen);
    const workflowId = preset.workflow.workflow_id;
    const definition = await this.deps.workflows.definition(workflowId);
    for (const input of definition.manifest.inputs) if (input.type === 'seed') params[input.id] = seed;
    const existing = request.existing_image?.trim();
    if (existing) params[EXISTING_INPUT_IMAGE_KEY] = existing;
    const result = await this.deps.runner.execute(workflowId, params, request.input_image, { presetId: preset.id, submitter: request.submitter, ownerId: actor.userId, actor, countsFor: actor.userId });
    return { prompt_id: result.prompt_id, seeds: result.seeds };
  }
}

/** The run's `seed` field: an integer, `-1` (the default) meaning a new random seed. */
function parseSeed(raw: string | undefined): number {
  const text = raw?.trim() ?? '';
  if (text === '') return -1;
  const value = /^-?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < -1) throw new DomainError('invalid', `seed must be an integer of 0 or more, or -1 for a random seed (got "${raw}")`);
  return value;
}

/** The `answers` field: a JSON object of placeholder index → chosen option (`{}` when absent). */
function parseAnswers(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new DomainError('invalid', `answers is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new DomainError('invalid', 'answers must be a JSON object of placeholder index to chosen option');
  return parsed as Record<string, unknown>;
}

/** Each placeholder's chosen option; 400 naming the question when one is missing or not an option. */
function checkAnswers(located: readonly LocatedPlaceholder[], answers: Record<string, unknown>): Map<number, string> {
  const known = new Set(located.map((p) => String(p.index)));
  const stray = Object.keys(answers).find((key) => !known.has(key));
  if (stray !== undefined) {
    throw new DomainError('invalid', `answers: there is no placeholder question with index ${JSON.stringify(stray)} (indexes: ${[...known].join(', ') || 'none'})`);
  }
  const chosen = new Map<number, string>();
  for (const p of located) {
    const answer = answers[String(p.index)];
    const name = `question ${p.index} "${p.question}" (in ${p.field})`;
    if (answer === undefined || answer === null || answer === '') throw new DomainError('invalid', `Missing answer for ${name}: choose one of ${quoteList(p.options)}`);
    if (typeof answer !== 'string' || !p.options.includes(answer)) {
      throw new DomainError('invalid', `Answer ${JSON.stringify(answer)} for ${name} is not one of its options: ${quoteList(p.options)}`);
    }
    chosen.set(p.index, answer);
  }
  return chosen;
}

function quoteList(options: readonly string[]): string {
  return options.map((o) => JSON.stringify(o)).join(', ');
}
