/**
 * Kept LLM chats in SQLite (`llm_chats`, `llm_chat_messages`, migration 9): one row per
 * conversation with its model and settings, its messages in order. Multi-row changes run in one
 * transaction; deleting a chat deletes its messages (foreign key cascade).
 */
import crypto from 'node:crypto';
import type { Db } from '../../db/database.js';
import type { ChatDetail, ChatMessage, ChatSettings, ChatSummary } from '../../contracts/llm-chats.contract.js';
import { OWNER_ID } from '../../contracts/users.contract.js';

interface ChatRow {
  id: string;
  title: string;
  model: string | null;
  settings: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  owner_id: string;
}

function parseSettings(text: string): ChatSettings {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as ChatSettings) : {};
  } catch {
    return {};
  }
}

/** The wire form: `owner_id` only on another person's chat, so the owner's read as before people. */
function summary({ owner_id, ...row }: ChatRow): ChatSummary {
  return { ...row, settings: parseSettings(row.settings), ...(owner_id !== OWNER_ID ? { owner_id } : {}) };
}
const SELECT = 'SELECT c.id, c.title, c.model, c.settings, c.created_at, c.updated_at, (SELECT COUNT(*) FROM llm_chat_messages m WHERE m.chat_id = c.id) AS message_count, c.owner_id FROM llm_chats c';
/** `owner`: only that person's chats (another's is no chat at all); undefined: everyone's. */
const OF_OWNER = '(@owner IS NULL OR c.owner_id = @owner)';

export class ChatStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  /** Every chat (of `owner`, when given), the most recently changed first. */
  list(owner?: string): ChatSummary[] {
    return this.db.prepare<[{ owner: string | null }], ChatRow>(`${SELECT} WHERE ${OF_OWNER} ORDER BY c.updated_at DESC, c.rowid DESC`).all({ owner: owner ?? null }).map(summary);
  }

  get(id: string, owner?: string): ChatDetail | null {
    const row = this.db.prepare<[{ id: string; owner: string | null }], ChatRow>(`${SELECT} WHERE c.id = @id AND ${OF_OWNER}`).get({ id, owner: owner ?? null });
    if (!row) return null;
    const messages = this.db.prepare<[string], ChatMessage>('SELECT role, content, created_at FROM llm_chat_messages WHERE chat_id = ? ORDER BY id').all(id);
    return { ...summary(row), messages };
  }

  create(chat: { title: string; model: string | null; settings: ChatSettings; messages: Array<Omit<ChatMessage, 'created_at'>> }, owner: string = OWNER_ID): ChatDetail {
    const id = crypto.randomBytes(8).toString('hex');
    const now = this.now();
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO llm_chats (id, title, model, settings, created_at, updated_at, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?)').run(id, chat.title, chat.model, JSON.stringify(chat.settings), now, now, owner);
      this.insertMessages(id, chat.messages, now);
    })();
    return this.get(id)!;
  }

  /** Change title, model or settings; null when there is no such chat. */
  update(id: string, patch: { title?: string; model?: string | null; settings?: ChatSettings }, owner?: string): ChatDetail | null {
    const current = this.get(id, owner);
    if (!current) return null;
    this.db
      .prepare('UPDATE llm_chats SET title = ?, model = ?, settings = ?, updated_at = ? WHERE id = ?')
      .run(patch.title ?? current.title, patch.model === undefined ? current.model : patch.model, JSON.stringify(patch.settings ?? current.settings), this.now(), id);
    return this.get(id);
  }

  /** Append messages (and touch the chat); null when there is no such chat. */
  append(id: string, messages: Array<Omit<ChatMessage, 'created_at'>>, owner?: string): ChatDetail | null {
    const now = this.now();
    const found = this.db.transaction(() => {
      if (this.db.prepare(`UPDATE llm_chats AS c SET updated_at = @now WHERE id = @id AND ${OF_OWNER}`).run({ now, id, owner: owner ?? null }).changes === 0) return false;
      this.insertMessages(id, messages, now);
      return true;
    })();
    return found ? this.get(id) : null;
  }

  /** True when a chat was deleted. */
  delete(id: string, owner?: string): boolean {
    return this.db.prepare(`DELETE FROM llm_chats AS c WHERE id = @id AND ${OF_OWNER}`).run({ id, owner: owner ?? null }).changes > 0;
  }

  private insertMessages(id: string, messages: Array<Omit<ChatMessage, 'created_at'>>, now: string): void {
    const insert = this.db.prepare('INSERT INTO llm_chat_messages (chat_id, role, content, created_at) VALUES (?, ?, ?, ?)');
    for (const m of messages) insert.run(id, m.role, m.content, now);
  }
}
