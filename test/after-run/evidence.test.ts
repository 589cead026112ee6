import { evidenceEnabled, readEvidence, recordEvidence } from '../support/evidence';

// The after-run checks are only as good as what reaches them: this one fails when npm test stops passing the directory on.
describe('the whole run leaves its records for the after-run checks', () => {
  it('reads back records every test worker appended, from this process too', () => {
    expect(evidenceEnabled()).toBe(true);
    recordEvidence('after-run-self', { at: 'after-run' });
    expect(readEvidence('after-run-self')).toEqual([{ at: 'after-run' }]);
  });
});
