// The spec tables as the suites see them: loaded once per process with the run's vendor word (row ids do
// not depend on it, so listing uses the default).
import { loadSpecTables, type SpecTables } from '../../spec-tables/index.ts';
import { currentRunContext } from './run-context.ts';

export function specTables(): SpecTables {
  return loadSpecTables({ vendor: currentRunContext()?.vendor });
}
