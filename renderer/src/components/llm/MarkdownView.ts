/**
 * Renders the Markdown tree with Vue's `h()`: every piece of model text becomes a text node, so
 * nothing in an answer is ever parsed as HTML. While an answer streams in, each token re-parses
 * only its last block (`IncrementalMarkdown`), not the whole answer.
 */
import { defineComponent, h, type PropType, type VNode } from 'vue';
import { IncrementalMarkdown, type Block, type Inline } from '../../lib/markdown.js';

function inline(nodes: Inline[]): Array<VNode | string> {
  return nodes.map((n) => {
    switch (n.kind) {
      case 'text':
        return n.text;
      case 'code':
        return h('code', n.text);
      case 'strong':
        return h('strong', inline(n.children));
      case 'em':
        return h('em', inline(n.children));
      case 'link':
        return h('a', { href: n.href, target: '_blank', rel: 'noopener noreferrer nofollow' }, inline(n.children));
    }
  });
}

function block(b: Block): VNode {
  switch (b.kind) {
    case 'code':
      // A code block scrolls sideways on a phone: focusable, so a keyboard can scroll it (axe scrollable-region-focusable).
      return h('pre', { class: 'md-code', 'data-lang': b.lang || undefined, tabindex: 0 }, [h('code', b.text)]);
    case 'heading':
      // Answers sit inside a page with its own h1/h2: start answer headings at h3.
      return h(`h${Math.min(6, b.level + 2)}`, inline(b.children));
    case 'list':
      return h(b.ordered ? 'ol' : 'ul', b.items.map((item) => h('li', inline(item))));
    case 'quote':
      return h('blockquote', inline(b.children));
    case 'paragraph':
      return h('p', inline(b.children));
  }
}

export default defineComponent({
  name: 'MarkdownView',
  props: { source: { type: String as PropType<string>, required: true } },
  setup(props) {
    const markdown = new IncrementalMarkdown();
    return () => h('div', { class: 'markdown' }, markdown.update(props.source).map(block));
  },
});
