/**
 * `GET/PUT /api/admin/settings/env` and `POST /api/admin/settings/reveal`: the environment as
 * groups of entries with secrets masked, runtime edits of the editable variables (applied
 * to the services at once and stored), and the unmasked secrets behind a second key check.
 * Events name variables, never values.
 */
import { MIN_LAN_KEY_LENGTH } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import { DomainError } from '../domain-error.js';
import { maskSecret } from '../redact.js';
import type { BotControl } from './bot-control.js';
import { ENV_GROUP_INFO, PLATFORM_GROUP, SECRET_NAME, type EnvGroupInfo, type EnvVarInfo } from './env-catalog.js';
import { EDITABLE_VARS, isEditableVar, type Secrets } from './secrets.store.js';
import type { EnvEntry, EnvGroup } from '../contracts/system.contract.js';

/** The outcome of checking the key a reveal carries (the login limiter decides `throttled`). */
export type KeyVerdict = { kind: 'ok' } | { kind: 'bad' } | { kind: 'throttled'; retryAfterS: number };

export interface EnvSettingsDeps {
  secrets: Secrets;
  /** The environment at boot (config's snapshot). */
  reportedEnv: Readonly<Record<string, string>>;
  /** Facts of this installation shown in the read-only group. */
  readonlyValues: Readonly<Record<string, string>>;
  events: EventBus;
  bot: BotControl;
  checkKey: (address: string, candidate: string) => KeyVerdict;
  /** Cut live connections signed in under the old API key (cookies stop verifying by themselves). */
  signOutEverywhere: () => void;
}

const MAX_VALUE_LENGTH = 1024;

export class EnvSettingsService {
  constructor(private readonly deps: EnvSettingsDeps) {}

  /** Every group with its entries, secrets masked. */
  groups(): EnvGroup[] {
    const groups: EnvGroup[] = ENV_GROUP_INFO.map((group) => this.group(group));
    const platformVars = Object.keys(this.deps.reportedEnv)
      .filter((key) => key.startsWith(PLATFORM_GROUP.prefix))
      .sort();
    if (platformVars.length > 0) {
      const vars = platformVars.map((key) => ({ key, default: null, description: 'Set by the hosting platform', sensitive: SECRET_NAME.test(key) }));
      groups.push(this.group({ id: PLATFORM_GROUP.id, label: PLATFORM_GROUP.label, vars }));
    }
    return groups;
  }

  /** Apply and store an editable variable; returns its (masked) entry. */
  async update(key: string, rawValue: string): Promise<EnvEntry> {
    if (!isEditableVar(key)) {
      throw new DomainError('invalid', `${key} is not editable at runtime; editable variables: ${EDITABLE_VARS.join(', ')}`);
    }
    const value = rawValue.trim();
    if (value.length > MAX_VALUE_LENGTH || /[\r\n\0]/.test(value)) {
      throw new DomainError('invalid', `value: ${key} must be one line of at most ${MAX_VALUE_LENGTH} characters`);
    }
    if (key === 'API_KEY' && value.length < MIN_LAN_KEY_LENGTH) {
      // A shorter key could be guessed over the LAN Studio may be listening on.
      throw new DomainError('invalid', `value: API_KEY must be at least ${MIN_LAN_KEY_LENGTH} characters`);
    }
    const changed = this.deps.secrets.get(key) !== (value || null);
    this.deps.secrets.set(key, value);
    let chatsCleared = 0;
    if (changed && key === 'API_KEY') {
      this.deps.signOutEverywhere();
      // A chat admitted with the old key is a session too: it must send the new key.
      chatsCleared = this.deps.bot.forgetAdmittedChats();
    }
    if (changed && (key === 'CHATBOT_BOT_TOKEN' || key === 'CHATBOT_BOT_NAME')) await this.deps.bot.restart();
    const chatsNote = chatsCleared > 0 ? ` and ${chatsCleared} chat(s) admitted with /key must send the new key` : '';
    const note = key === 'API_KEY' ? `; every session was signed out${chatsNote}` : '';
    this.deps.events.emit('settings.env.updated', key === 'API_KEY' ? 'warning' : 'info', `${key} was ${value ? 'changed' : 'cleared'}${note}`, { key, set: value !== '' });
    return this.entry(ENV_GROUP_INFO.flatMap((group) => group.vars).find((v) => v.key === key)!);
  }

  /** Every sensitive variable's full value, when `candidate` is the API key in force. */
  reveal(address: string, candidate: string): Record<string, string> {
    const verdict = this.deps.checkKey(address, candidate);
    if (verdict.kind === 'throttled') {
      throw new DomainError('too_many', `Too many wrong API keys; try again in ${verdict.retryAfterS} s`, { retry_after: verdict.retryAfterS });
    }
    if (verdict.kind === 'bad') {
      this.deps.events.emit('settings.reveal.denied', 'warning', `A request from ${address} to reveal secrets gave a wrong API key`, { address });
      throw new DomainError('forbidden', 'The API key does not match');
    }
    const out: Record<string, string> = {};
    for (const group of this.groups()) {
      for (const entry of group.vars) if (entry.sensitive) out[entry.key] = this.rawValue(entry.key);
    }
    this.deps.events.emit('settings.revealed', 'warning', `Secret settings were revealed to ${address}`, { address, keys: Object.keys(out) });
    return out;
  }

  private group(info: EnvGroupInfo): EnvGroup {
    return { id: info.id, label: info.label, vars: info.vars.map((v) => this.entry(v)) };
  }

  private entry(info: EnvVarInfo): EnvEntry {
    const raw = this.rawValue(info.key);
    const sensitive = info.sensitive ?? false;
    return {
      key: info.key,
      value: sensitive ? maskSecret(raw) : raw,
      sensitive,
      set: raw !== '',
      default: info.default,
      description: info.description,
      editable: info.editable ?? false,
    };
  }

  private rawValue(key: string): string {
    // The update repository is set on its own route, but shown here with the value in force.
    if (isEditableVar(key) || key === 'REPO_URL') return this.deps.secrets.get(key) ?? '';
    return this.deps.readonlyValues[key] ?? this.deps.reportedEnv[key] ?? '';
  }
}
