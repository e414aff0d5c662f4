/**
 * The problem tab: the PDF statement (embedded, with a link to open it), the "รายละเอียด" table (the PDF,
 * the limits, the attachment) and the examples.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { problemContract, type Problem } from '@otog/schemas/api/problem';
import { Button } from '../ui/Button.tsx';
import { DownloadIcon, ExternalIcon } from '../ui/icons.tsx';
import { apiUrl, callApi } from '../../lib/api.ts';
import { toast } from '../../lib/toast.tsx';
import { ExamplesSection } from './ExamplesSection.tsx';
import './problem.css';

const seconds = (milliseconds: number) => `${Number((milliseconds / 1000).toFixed(3))}`;

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ไบต์`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function AttachmentButton({ problem }: { problem: Problem }) {
  const [pending, setPending] = useState(false);
  const download = async () => {
    setPending(true);
    try {
      const { url, metadata } = await callApi(problemContract.downloadAttachment, { params: { problemId: problem.id }, body: {} });
      // The signed URL answers as a download, so the page stays where it is.
      const link = document.createElement('a');
      link.href = url;
      link.download = metadata.name;
      link.rel = 'noreferrer';
      document.body.append(link);
      link.click();
      link.remove();
    } catch {
      toast.error('ไม่สามารถดาวน์โหลดไฟล์แนบได้');
    } finally {
      setPending(false);
    }
  };
  return (
    <Button size="sm" variant="outline" icon={<DownloadIcon width={15} height={15} />} loading={pending} onClick={() => void download()} aria-label={`ดาวน์โหลดไฟล์แนบ ${problem.attachmentMetadata?.name ?? ''}`}>
      ดาวน์โหลด
    </Button>
  );
}

/**
 * Whether the statement PDF exists: a HEAD request, so a problem without one shows a message instead of the
 * server's error inside the viewer. The viewer shows meanwhile, and stays for anything but a 404.
 */
function useDocExists(problemId: number, docUrl: string) {
  return useQuery({
    queryKey: ['HEAD', problemContract.getProblemDoc.path, { problemId }],
    queryFn: async ({ signal }) => (await fetch(docUrl, { method: 'HEAD', credentials: 'include', signal })).status !== 404,
    staleTime: 60_000,
    retry: false,
  });
}

export function StatementTab({ problem, isAdmin }: { problem: Problem; isAdmin: boolean }) {
  const docUrl = apiUrl(problemContract.getProblemDoc, { params: { problemId: problem.id } });
  const attachment = problem.attachmentMetadata;
  const doc = useDocExists(problem.id, docUrl);
  const missing = doc.data === false;
  return (
    <div className="stack statement-tab">
      <div className="pdf-frame">
        <div className="pdf-toolbar">
          <span className="muted">ไฟล์โจทย์ (PDF)</span>
          {missing ? null : (
            <a href={docUrl} target="_blank" rel="noreferrer" className="btn btn-ghost btn-sm">
              <ExternalIcon width={15} height={15} />
              เปิดไฟล์ PDF
            </a>
          )}
        </div>
        {missing ? (
          <p className="problem-pdf-missing muted">ยังไม่มีไฟล์โจทย์ (PDF) สำหรับข้อนี้</p>
        ) : (
          <embed src={docUrl} type="application/pdf" className="problem-pdf" title={`โจทย์ ${problem.name}`} />
        )}
      </div>

      <section className="card problem-section" aria-labelledby="details-title">
        <h2 id="details-title" className="card-title">
          รายละเอียด
        </h2>
        <div className="table-wrap">
          <table className="table details-table">
            <tbody>
              <tr>
                <th scope="row">โจทย์</th>
                <td>
                  {missing ? (
                    <span className="muted">ยังไม่มีไฟล์</span>
                  ) : (
                    <a href={docUrl} download={`${problem.sname || problem.id}.pdf`} className="btn btn-outline btn-sm" aria-label={`ดาวน์โหลดไฟล์โจทย์ ${problem.name}`}>
                      <DownloadIcon width={15} height={15} />
                      ดาวน์โหลด
                    </a>
                  )}
                </td>
              </tr>
              <tr>
                <th scope="row">ระยะเวลาจำกัด</th>
                <td>{seconds(problem.timeLimit)} วินาที</td>
              </tr>
              <tr>
                <th scope="row">หน่วยความจำสูงสุด</th>
                <td>{problem.memoryLimit} MB</td>
              </tr>
              {attachment ? (
                <tr>
                  <th scope="row">ไฟล์แนบ</th>
                  <td>
                    <span className="row">
                      <AttachmentButton problem={problem} />
                      <span className="muted attachment-name">
                        {attachment.name} ({formatBytes(attachment.size)})
                      </span>
                    </span>
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
      </section>

      <ExamplesSection problem={problem} isAdmin={isAdmin} />
    </div>
  );
}
