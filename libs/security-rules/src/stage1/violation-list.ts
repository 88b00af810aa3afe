import type { FieldViolation } from '@engram/errors';
import { MAX_VIOLATIONS } from './field-limits.ts';
import type { ViolationReason } from './violation-reason.ts';

/**
 * Collects violations up to a cap. Validators keep going after the first problem (a client fixes
 * everything in one round trip) but stop doing work once the list is full.
 */
export class ViolationList {
  private readonly items: FieldViolation[] = [];

  constructor(private readonly cap: number = MAX_VIOLATIONS) {}

  get full(): boolean {
    return this.items.length >= this.cap;
  }

  add(field: string, reason: ViolationReason, description: string): void {
    if (!this.full) this.items.push({ field, description, reason });
  }

  addAll(violations: readonly FieldViolation[]): void {
    for (const v of violations) {
      if (this.full) return;
      this.items.push(v);
    }
  }

  toArray(): FieldViolation[] {
    return [...this.items];
  }
}
