/**
 * The main navigation's entries, in order. Pages added later (presets, model hub, gallery, nodes,
 * LLM, chat bot, system) add a line here and a route in `router.ts`.
 */
export interface NavLink {
  to: string;
  label: string;
  /** A glyph shown beside the label (decorative). */
  icon: string;
  /** Which live count to show as a badge beside the label. */
  badge?: 'activeJobs';
}

export const NAV_LINKS: readonly NavLink[] = [
  { to: '/home', label: 'Workflows', icon: '▦' },
  { to: '/jobs', label: 'Queue & history', icon: '☰', badge: 'activeJobs' },
  { to: '/assets', label: 'Assets', icon: '▣' },
  { to: '/models', label: 'Models & LoRAs', icon: '⬇' },
  { to: '/events', label: 'Events', icon: '◷' },
  { to: '/presets', label: 'Presets', icon: '★' },
  { to: '/nodes', label: 'Node packages', icon: '▤' },
  { to: '/llm', label: 'LLM', icon: '✎' },
  { to: '/system', label: 'System', icon: '⚙' },
];
