/**
 * The main navigation's entries in groups, so a phone's drawer stays short (one group open at a
 * time). A new page adds a line to its group here and a route in `router.ts`.
 */
export interface NavLink {
  to: string;
  label: string;
  /** A glyph shown beside the label (decorative). */
  icon: string;
  /** Which live count to show as a badge beside the label. */
  badge?: 'activeJobs';
  /** Only for owners and admins (the server refuses the others those pages' routes). */
  admin?: true;
}

export interface NavGroup {
  id: string;
  label: string;
  links: readonly NavLink[];
}

const NAV_GROUPS: readonly NavGroup[] = [
  {
    id: 'create',
    label: 'Create',
    links: [
      { to: '/home', label: 'Workflows', icon: '▦' },
      { to: '/presets', label: 'Presets', icon: '★' },
      { to: '/jobs', label: 'Queue & history', icon: '☰', badge: 'activeJobs' },
      { to: '/batches', label: 'Batches', icon: '▥' },
      { to: '/assets', label: 'Assets', icon: '▣' },
    ],
  },
  {
    id: 'models',
    label: 'Models',
    links: [
      { to: '/models', label: 'Models & LoRAs', icon: '⬇' },
      { to: '/modelhub', label: 'Model hub lookup', icon: '⌕' },
      { to: '/nodes', label: 'Node packages', icon: '▤', admin: true },
      { to: '/llm', label: 'LLM', icon: '✎' },
    ],
  },
  {
    id: 'admin',
    label: 'Admin',
    links: [
      { to: '/engines', label: 'Engines', icon: '◎', admin: true },
      { to: '/events', label: 'Events', icon: '◷' },
      { to: '/chatbot', label: 'Chat bot', icon: '✉', admin: true },
      { to: '/system', label: 'System', icon: '⚙', admin: true },
      { to: '/disk', label: 'Disk', icon: '◔', admin: true },
      { to: '/users', label: 'Users', icon: '☺', admin: true },
      { to: '/keys', label: 'My keys', icon: '◈' },
      { to: '/notifications', label: 'Notifications', icon: '⚑' },
    ],
  },
];

/** The groups as a person of this role sees them: admin pages only for owners and admins. */
export function navFor(admin: boolean): NavGroup[] {
  return NAV_GROUPS.map((g) => ({ ...g, links: g.links.filter((l) => admin || !l.admin) })).filter((g) => g.links.length > 0);
}

// Pages without a link of their own, by the link they belong under.
const PARENT: Record<string, string> = { '/run': '/home', '/workflows': '/home', '/gallery': '/models', '/setup': '/system' };

/** The link the page at `path` is under (a job page under Queue & history, Run under Workflows): the one highlighted. */
export function navLinkOf(path: string): string {
  const segment = `/${path.split('/')[1] ?? ''}`;
  return PARENT[segment] ?? segment;
}

/** The group holding the page at `path` (by its first segment), or the first group. */
export function groupOf(path: string): string {
  const first = navLinkOf(path);
  const match = NAV_GROUPS.find((g) => g.links.some((l) => l.to === first));
  return (match ?? NAV_GROUPS[0]!).id;
}
