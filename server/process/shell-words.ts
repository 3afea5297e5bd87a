/**
 * Split a command-line string the way a POSIX shell would for plain words: whitespace separates,
 * single quotes keep everything literally, double quotes keep spaces (backslash escapes `"`, `\`,
 * `$` and `` ` `` inside them), a backslash outside quotes escapes the next character. No
 * expansion of any kind. For `ENGINE_ARGS="--cpu --output-directory '/mnt/my outputs'"`.
 */
class ShellWordsError extends Error {}

export function shellWords(input: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (c === "'") {
      const end = input.indexOf("'", i + 1);
      if (end < 0) throw new ShellWordsError(`unterminated single quote in: ${input}`);
      word += input.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      i++;
      for (; i < input.length && input[i] !== '"'; i++) {
        if (input[i] === '\\' && i + 1 < input.length && '"\\$`'.includes(input[i + 1]!)) i++;
        word += input[i];
      }
      if (i >= input.length) throw new ShellWordsError(`unterminated double quote in: ${input}`);
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 < input.length) word += input[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
