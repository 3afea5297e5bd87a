/**
 * CSV as spreadsheets write it (RFC 4180): comma-separated, fields in double quotes may hold
 * commas, line breaks and doubled quotes; CRLF or LF; a leading byte-order mark is dropped. The
 * first record is the header. Written here rather than taken from a package: this is all a batch
 * needs, and the errors must name the row.
 */
import { DomainError } from '../domain-error.js';

export interface CsvTable {
  header: string[];
  /** Data records (the header not included); `rows[0]` is the spreadsheet's row 2. */
  rows: string[][];
}

export function parseCsv(text: string): CsvTable {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    record.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    // A blank line is no record.
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += c;
  }
  if (quoted) throw new DomainError('invalid', `csv: row ${records.length + 1} has a quote that is never closed`);
  if (field !== '' || record.length > 0) endRecord();
  const [header, ...rows] = records;
  if (!header) throw new DomainError('invalid', 'csv: it is empty (the first row names the columns)');
  return { header: header.map((h) => h.trim()), rows };
}
