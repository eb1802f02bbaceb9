/** LIKE patterns, the same on both engines (the statements that use them say `escape '\'`). */

/** `%`, `_` and the escape character itself taken literally in a LIKE pattern (escape `\`). */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
