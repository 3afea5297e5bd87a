/**
 * Search over the packages the node maps know (the shipped map and the cached community map):
 * by package name and by node type, so "upscale" finds a package by what it adds. Nothing is
 * downloaded here; the search knows what the cache holds.
 */
import type { MapPackage, NodeSearchHit } from '../contracts/nodes.contract.js';

/** Node types shown per hit: the matching ones first. */
const SHOWN_TYPES = 6;

/** Lower case, with separators as spaces: "ComfyUI-KJNodes" and "kj nodes" meet. */
function plain(text: string): string {
  return text.toLowerCase().replace(/[-_./|()]+/g, ' ');
}

/** The packages every word of `query` matches (in the name or a node type), best first, at most `limit`. */
export function searchNodeMap(packages: readonly MapPackage[], query: string, limit = 20): NodeSearchHit[] {
  const words = plain(query).split(/\s+/).filter(Boolean);
  const scored: Array<{ hit: NodeSearchHit; score: number }> = [];
  for (const pkg of packages) {
    const name = plain(pkg.name);
    const types = pkg.node_types.map((type) => ({ type, text: plain(type) }));
    const matching = types.filter(({ text }) => words.some((w) => text.includes(w)));
    if (!words.every((w) => name.includes(w) || matching.some(({ text }) => text.includes(w)))) continue;
    // A name match ranks above node types; an exact name above all; more matching types break ties.
    const score = (name === words.join(' ') ? 1000 : 0) + (words.every((w) => name.includes(w)) ? 100 : 0) + Math.min(matching.length, 50);
    const shown = [...matching.map(({ type }) => type), ...pkg.node_types.filter((type) => !matching.some((m) => m.type === type))].slice(0, SHOWN_TYPES);
    scored.push({ hit: { name: pkg.name, url: pkg.url, node_types: shown, total_types: pkg.node_types.length }, score });
  }
  scored.sort((a, b) => b.score - a.score || a.hit.name.localeCompare(b.hit.name, undefined, { sensitivity: 'base' }));
  return scored.slice(0, limit).map(({ hit }) => hit);
}
