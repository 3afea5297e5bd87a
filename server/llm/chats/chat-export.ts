/**
 * A kept chat as a file: Markdown for reading (a heading per message, the model and settings on
 * top) or JSON for tools (the chat exactly as the API returns it). Pure, so it is unit-tested.
 */
import type { ChatDetail } from '../../contracts/llm-chats.contract.js';

const ROLE: Record<string, string> = { system: 'System', user: 'You', assistant: 'Assistant' };

/** The Markdown export. */
export function chatMarkdown(chat: ChatDetail): string {
  const settings = Object.entries(chat.settings).filter(([k]) => k !== 'system');
  const lines = [`# ${chat.title}`, '', `- Model: ${chat.model ?? 'not set'}`, `- Started: ${chat.created_at}`];
  if (settings.length) lines.push(`- Settings: ${settings.map(([k, v]) => `${k} ${String(v)}`).join(', ')}`);
  if (chat.settings.system) lines.push('', '## System prompt', '', chat.settings.system);
  for (const m of chat.messages) lines.push('', `## ${ROLE[m.role] ?? m.role}`, '', m.content);
  return `${lines.join('\n')}\n`;
}

/** A file name for the export: the title in safe characters. */
export function exportFileName(chat: ChatDetail, ext: 'md' | 'json'): string {
  const base = chat.title.replace(/[^A-Za-z0-9 _-]+/g, '').trim().replace(/\s+/g, '-').slice(0, 60) || 'chat';
  return `${base}.${ext}`;
}
