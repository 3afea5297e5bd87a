/**
 * One conversation per chat: presets as buttons → each placeholder question with its options
 * as buttons → a photo when the preset's workflow takes an input image → run (followed by the
 * RunReporter). Only allowed chats get past the door (see `chat-door.ts`). Button data carries a
 * per-chat menu number, so a button from an old menu is recognised and answered, not misapplied.
 */
import type { CallbackQuery, Message, Update } from 'grammy/types';
import type { Logger } from '../logging.js';
import type { ChatDoor } from './chat-door.js';
import type { ChatPlatformClient, Keyboard } from './chat-platform.client.js';
import { explain } from './explain.js';
import type { RunReporter } from './run-reporter.js';
import { StudioApiError, type Placeholder, type PresetEntry, type RunImage, type StudioApiClient } from './studio-api.client.js';

/** A longer keyboard is hard to use in a chat (and the platform caps a message's markup). */
const MAX_BUTTONS = 50;

interface Chosen {
  id: string;
  name: string;
  questions: Placeholder[];
  needsImage: boolean;
}

interface ChatSession {
  menu: number;
  presets: PresetEntry[];
  chosen: Chosen | null;
  answers: Record<string, string>;
  step: 'choose' | 'question' | 'photo';
}

export interface ConversationDeps {
  platform: ChatPlatformClient;
  studio: StudioApiClient;
  door: ChatDoor;
  reporter: RunReporter;
  logger: Logger;
}

/** Handles the bot's updates. */
export class Conversation {
  private readonly sessions = new Map<number, ChatSession>();
  private menus = 0;

  constructor(private readonly deps: ConversationDeps) {}

  /** Handle one update from the poll loop. */
  async handle(update: Update): Promise<void> {
    if (update.callback_query) return this.onButton(update.callback_query);
    if (update.message) return this.onMessage(update.message);
  }

  private async onMessage(message: Message): Promise<void> {
    const chatId = message.chat.id;
    if (!(await this.deps.door.admit(message))) return;
    const text = message.text?.trim() ?? '';
    const session = this.sessions.get(chatId);
    if (/^\/cancel(@\w+)?$/i.test(text)) {
      this.sessions.delete(chatId);
      await this.deps.platform.sendMessage(chatId, 'Cancelled. Send any message to start again.');
      return;
    }
    if (session?.step === 'photo' && session.chosen) {
      const image = await this.photoOf(message);
      if (image) return this.run(chatId, session, image);
      if (image === null && !text.startsWith('/')) {
        await this.deps.platform.sendMessage(chatId, `Please send a photo for "${session.chosen.name}" (or /cancel).`);
        return;
      }
      if (image === undefined) return;
    }
    await this.showPresets(chatId);
  }

  private async onButton(query: CallbackQuery): Promise<void> {
    // An old message may be inaccessible; in a private chat the sender's id is the chat's.
    const chatId = query.message?.chat.id ?? query.from.id;
    await this.deps.platform.answerCallbackQuery(query.id).catch(() => undefined);
    if (!this.deps.door.allowed(chatId)) return;
    const session = this.sessions.get(chatId);
    const [kind, menu, first, second] = (query.data ?? '').split(':');
    if (!session || Number(menu) !== session.menu) {
      await this.deps.platform.sendMessage(chatId, 'That menu is out of date; here is a fresh one.');
      return this.showPresets(chatId);
    }
    if (kind === 'p' && session.step === 'choose') return this.choose(chatId, session, Number(first));
    if (kind === 'a' && session.step === 'question' && session.chosen) {
      const question = session.chosen.questions[Number(first)];
      const option = question?.options[Number(second)];
      if (question && option !== undefined && Object.keys(session.answers).length === Number(first)) {
        session.answers[String(question.index)] = option;
        await this.deps.platform.sendMessage(chatId, `${question.question}: ${option}`);
        return this.advance(chatId, session);
      }
    }
  }

  private async showPresets(chatId: number): Promise<void> {
    let presets: PresetEntry[];
    let closed: number;
    try {
      // Private presets stay out of the chat (documented in the README), and so do those the chat's person may not run.
      const listed = (await this.deps.studio.presets(chatId)).filter((p) => !p.private);
      presets = listed.filter((p) => p.runnable !== false);
      closed = listed.length - presets.length;
    } catch (err) {
      await this.deps.platform.sendMessage(chatId, `I could not list the presets: ${explain(err)}.`);
      return;
    }
    if (presets.length === 0 && closed > 0) {
      await this.deps.platform.sendMessage(chatId, `You may not run any of the ${closed} preset(s) here: your role or key may only look, or your allow-list leaves out their workflows.`);
      return;
    }
    if (presets.length === 0) {
      await this.deps.platform.sendMessage(chatId, 'There are no presets yet. Save one in Studio, then send me a message.');
      return;
    }
    const session: ChatSession = { menu: ++this.menus, presets, chosen: null, answers: {}, step: 'choose' };
    this.sessions.set(chatId, session);
    const keyboard: Keyboard = presets.slice(0, MAX_BUTTONS).map((p, i) => [{ text: p.name, data: `p:${session.menu}:${i}` }]);
    const more = presets.length > MAX_BUTTONS ? ` (the first ${MAX_BUTTONS} of ${presets.length}; the rest are in Studio)` : '';
    await this.deps.platform.sendMessage(chatId, `Which preset shall I run?${more}`, keyboard);
  }

  private async choose(chatId: number, session: ChatSession, index: number): Promise<void> {
    const entry = session.presets[index];
    if (!entry) return;
    try {
      const [detail, questions] = await Promise.all([this.deps.studio.preset(chatId, entry.id), this.deps.studio.placeholders(chatId, entry.id)]);
      const detected = detail.detected_type ?? detail.source?.detected_type ?? entry.detected_type ?? '';
      // i2i / i2v presets (from model hub images) start from a picture; others are found out by the run's 400.
      const needsImage = detail.needs_image === true || /^i2/.test(detected);
      session.chosen = { id: entry.id, name: detail.name ?? entry.name, questions, needsImage };
    } catch (err) {
      await this.deps.platform.sendMessage(chatId, `I could not open "${entry.name}": ${explain(err)}.`);
      return;
    }
    await this.deps.platform.sendMessage(chatId, `Preset: ${session.chosen.name}`);
    await this.advance(chatId, session);
  }

  /** The next question, else the photo, else the run. */
  private async advance(chatId: number, session: ChatSession): Promise<void> {
    const chosen = session.chosen!;
    const next = Object.keys(session.answers).length;
    const question = chosen.questions[next];
    if (question) {
      session.step = 'question';
      const keyboard = question.options.map((option, i) => [{ text: option, data: `a:${session.menu}:${next}:${i}` }]);
      await this.deps.platform.sendMessage(chatId, question.question, keyboard);
      return;
    }
    if (chosen.needsImage) return this.askPhoto(chatId, session);
    await this.run(chatId, session);
  }

  private async askPhoto(chatId: number, session: ChatSession): Promise<void> {
    session.step = 'photo';
    await this.deps.platform.sendMessage(chatId, `"${session.chosen!.name}" starts from a picture: please send me a photo.`);
  }

  private async run(chatId: number, session: ChatSession, image?: RunImage): Promise<void> {
    const chosen = session.chosen!;
    let promptId: string;
    try {
      promptId = await this.deps.studio.run(chatId, chosen.id, session.answers, image);
    } catch (err) {
      // The preset list does not say whether a workflow takes an image; the runner's 400 does.
      if (!image && err instanceof StudioApiError && err.status === 400 && /missing parameter "[^"]*image[^"]*"/i.test(err.detail)) {
        chosen.needsImage = true;
        return this.askPhoto(chatId, session);
      }
      this.sessions.delete(chatId);
      await this.deps.platform.sendMessage(chatId, `I could not start "${chosen.name}": ${explain(err)}. Send any message to try again.`);
      return;
    }
    this.sessions.delete(chatId);
    this.deps.reporter.follow(chatId, chosen.name, promptId);
  }

  /** The photo a message carries (largest size the platform hands over); null when none; undefined when it failed (the chat was told). */
  private async photoOf(message: Message): Promise<RunImage | null | undefined> {
    const fileId = largestPhoto(message) ?? (message.document?.mime_type?.startsWith('image/') ? message.document.file_id : undefined);
    if (!fileId) return null;
    try {
      const bytes = await this.deps.platform.downloadFile(fileId);
      return { bytes, filename: message.document?.file_name ?? photoName(bytes) };
    } catch (err) {
      await this.deps.platform.sendMessage(message.chat.id, `I could not fetch that photo: ${explain(err)}. Please send another one.`);
      return undefined;
    }
  }
}

/** Chat photos are JPEG; a PNG sent as a photo by another client keeps a matching name. */
function photoName(bytes: Uint8Array): string {
  return bytes[0] === 0x89 && bytes[1] === 0x50 ? 'photo.png' : 'photo.jpg';
}

function largestPhoto(message: Message): string | undefined {
  const sizes = [...(message.photo ?? [])].sort((a, b) => b.width * b.height - a.width * a.height);
  return (sizes.find((s) => (s.file_size ?? 0) <= 20 * 1024 * 1024) ?? sizes[0])?.file_id;
}
