/**
 * A problem's attachment (the file contestants may download beside the statement): two steps, as OTOG —
 * POST upload-attachment records the metadata and answers a signed URL, then the bytes are PUT there.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { problemContract, type AttachmentMetadata } from '@otog/schemas/api/problem';
import { Button } from '../../components/ui/Button.tsx';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { API_BASE, ApiError, callApi, errorMessage } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/dates.ts';
import { toast } from '../../lib/toast.tsx';
import { FileField, formatBytes } from './FileField.tsx';
import { invalidatePaths } from '../../lib/query.ts';
import type { AdminProblem } from './types.ts';

/**
 * Where to PUT: the API answers an absolute URL of itself (`http://host/api/problem/1/attachment?...`), which
 * behind a proxy may name an inner host or scheme, so our own origin is used for an /api path. A path
 * without /api is taken as relative to it; any other absolute URL (an object store) is used as it is.
 */
export function uploadTarget(url: string): string {
  if (/^https?:\/\//i.test(url)) {
    const parsed = new URL(url);
    return parsed.pathname.startsWith(`${API_BASE}/`) ? `${parsed.pathname}${parsed.search}` : url;
  }
  if (url.startsWith(`${API_BASE}/`)) return url;
  return `${API_BASE}${url.startsWith('/') ? '' : '/'}${url}`;
}

async function putBytes(url: string, file: File): Promise<void> {
  const response = await fetch(uploadTarget(url), {
    method: 'PUT',
    body: file,
    headers: { 'content-type': file.type || 'application/octet-stream' },
    credentials: 'omit',
  });
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => null);
    const message = typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : response.statusText;
    throw new ApiError(response.status, message);
  }
}

export async function uploadAttachment(problemId: number, file: File): Promise<void> {
  const metadata: AttachmentMetadata = { size: file.size, name: file.name, lastModified: Math.max(0, Math.floor(file.lastModified)), type: file.type };
  let id = toast.loading('(1/2) กำลังบันทึก...');
  try {
    const { url } = await callApi(problemContract.uploadAttachment, { params: { problemId }, body: { metadata } });
    toast.dismiss(id);
    id = toast.loading('(2/2) กำลังอัปโหลดไฟล์...');
    await putBytes(url, file);
    toast.dismiss(id);
    toast.success('อัปโหลดไฟล์สำเร็จ');
  } catch (error) {
    toast.dismiss(id);
    toast.error(errorMessage(error, 'อัปโหลดไฟล์ไม่สำเร็จ กรุณาลองใหม่อีกครั้ง'));
    throw error;
  }
}

const NAME_MAX = 255;

export function AttachmentDialog({ problem, onClose }: { problem: AdminProblem; onClose(): void }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);
  const current = problem.attachmentMetadata;

  const upload = async () => {
    if (!file) return setError('กรุณาเลือกไฟล์แนบ');
    if (file.size === 0) return setError('ไฟล์ว่างเปล่า กรุณาเลือกไฟล์อื่น');
    if (file.name.length > NAME_MAX) return setError(`ชื่อไฟล์ยาวได้ไม่เกิน ${NAME_MAX} ตัวอักษร`);
    setPending(true);
    try {
      await uploadAttachment(problem.id, file);
      void invalidatePaths(queryClient, '/problem');
      onClose();
    } catch (failure) {
      setPending(false);
      setError(errorMessage(failure, 'อัปโหลดไฟล์ไม่สำเร็จ กรุณาลองใหม่อีกครั้ง'));
    }
  };

  return (
    <Dialog
      open
      size="md"
      title={`ไฟล์แนบ — ${problem.name}`}
      onClose={() => {
        if (!pending) onClose();
      }}
      footer={
        <>
          <Button variant="ghost" onClick={onClose} disabled={pending}>
            ยกเลิก
          </Button>
          <Button variant="primary" loading={pending} onClick={() => void upload()}>
            อัปโหลด
          </Button>
        </>
      }
    >
      <div className="stack">
        <p className="muted admin-attachment-current">
          {current
            ? `ไฟล์ปัจจุบัน: ${current.name} (${formatBytes(current.size)}${current.lastModified ? `, แก้ไขเมื่อ ${formatDateTime(current.lastModified)}` : ''})`
            : 'ยังไม่มีไฟล์แนบ'}
        </p>
        <FileField
          label="ไฟล์แนบ"
          name="attachment"
          hint="ผู้เข้าแข่งขันดาวน์โหลดได้จากหน้าโจทย์ เช่น ZIP ของตัวอย่างหรือไลบรารี ไฟล์ใหม่จะแทนที่ไฟล์เดิม"
          file={file}
          error={error}
          disabled={pending}
          onFile={(chosen) => {
            setFile(chosen);
            setError(undefined);
          }}
        />
      </div>
    </Dialog>
  );
}
