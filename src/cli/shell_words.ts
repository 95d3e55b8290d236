/**
 * Shell words (pure): splitting a command line the way a POSIX shell would for simple commands
 * (quotes, escapes, `;`, `&`, `|`, parentheses and newlines between commands), and quoting a
 * word so the shell reads it back unchanged. Enough to find Pitroom commands in an agent's
 * shell call and to write commands into a settings file; not a shell.
 */

/** Splits a shell command line into commands of words (quotes and escapes honoured; pure). */
export function shellCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | null = null;
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? "") + line.slice(i + 1, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    } else if (ch === '"') {
      let j = i + 1;
      let quoted = "";
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length) j++;
        quoted += line[j];
      }
      word = (word ?? "") + quoted;
      i = j;
    } else if (ch === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i];
    } else if (/[;&|()\n]/.test(ch)) {
      endCommand();
    } else if (/\s/.test(ch)) {
      endWord();
    } else {
      word = (word ?? "") + ch;
    }
  }
  endCommand();
  return commands;
}

/** Quotes a word for a POSIX shell (plain words stay as they are). */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_\/.,:=@%+-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Quotes every word and joins them into one command line. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
