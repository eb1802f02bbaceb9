/**
 * Agents' free time (CONTRACT §20): which slots some agent can take, and which agent takes one.
 * Pure: the held times come from the viewings that hold them (every status but `cancelled`).
 * Times are epoch ms; periods are `[start, end)`, so a viewing ending at 10:30 leaves 10:30 free.
 */
import type { Slot } from './hours.ts';

/** A period an agent's viewing holds. */
export interface Held {
  userId: number;
  start: number;
  end: number;
}

const overlaps = (a: Slot, b: Slot) => a.start < b.end && b.start < a.end;

/** Held periods by agent, each list in start order. */
function byAgent(agents: readonly number[], held: readonly Held[]): Map<number, Held[]> {
  const map = new Map<number, Held[]>(agents.map((id) => [id, []]));
  for (const h of held) map.get(h.userId)?.push(h);
  for (const list of map.values()) list.sort((a, b) => a.start - b.start);
  return map;
}

/**
 * The slots (in start order) in which at least one of `agents` has no held period overlapping.
 * One pass per agent: each agent's periods are walked once along the slots.
 */
export function freeSlots(slots: readonly Slot[], agents: readonly number[], held: readonly Held[]): Slot[] {
  const lists = [...byAgent(agents, held).values()];
  // Per agent, the first held period that can still overlap a slot (periods ending before it are passed).
  const next = lists.map(() => 0);
  const free: Slot[] = [];
  for (const slot of slots) {
    let someoneFree = false;
    for (let a = 0; a < lists.length; a++) {
      const list = lists[a];
      let i = next[a];
      // A leading period that ends by this slot's start ends before every later slot too (slots
      // come in start order); the scan below still tests each period it meets exactly.
      while (i < list.length && list[i].end <= slot.start) i++;
      next[a] = i;
      let busy = false;
      for (let j = i; j < list.length && list[j].start < slot.end; j++) {
        if (overlaps(list[j], slot)) {
          busy = true;
          break;
        }
      }
      if (!busy) {
        someoneFree = true;
        break;
      }
    }
    if (someoneFree) free.push(slot);
  }
  return free;
}

/**
 * The agent who takes `slot`: the first of `agents` (in the order given: the caller's
 * preference) with no held period overlapping it, or null when every one is busy.
 */
export function freeAgent(slot: Slot, agents: readonly number[], held: readonly Held[]): number | null {
  for (const agent of agents) {
    if (!held.some((h) => h.userId === agent && overlaps(h, slot))) return agent;
  }
  return null;
}
