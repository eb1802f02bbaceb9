/** Says once, plainly, which database engines the suite runs on. */
export default function setup(): void {
  process.stdout.write('\n[inmo] database engines under test: SQLite. PostgreSQL: skipped (this build has no PostgreSQL engine yet).\n\n');
}
