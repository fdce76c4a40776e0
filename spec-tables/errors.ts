/** Where in a table file a fault sits: the row's id when it has a usable one, else its index. */
export interface RowLocation {
  table: string;
  index: number;
  id?: string;
}

/**
 * The one error the loader throws. The message always names the file and, when the fault is
 * inside a row, the row (by id, or by table and index when the id itself is unusable) and the
 * field, so a broken table can be fixed without reading a stack trace:
 *   spec-tables/daemon-options.yaml: row "option.port": /default must be integer,null
 */
export class SpecTableError extends Error {
  override readonly name = 'SpecTableError';
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly row?: RowLocation,
    readonly field?: string,
  ) {
    super(`${file}: ${row ? `row ${describeRow(row)}: ` : ''}${field !== undefined ? `${field} ` : ''}${detail}`);
  }
}

function describeRow(row: RowLocation): string {
  return row.id !== undefined ? JSON.stringify(row.id) : `${row.table}[${row.index}]`;
}
