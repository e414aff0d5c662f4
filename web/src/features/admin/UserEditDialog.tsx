/**
 * The admin's user edit (PUT /user/:id). The API follows OTOG: a request with a password changes only the
 * password. So when both the details and a password change, the details go first, then the password.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, ShowNameSchema, USERNAME_PATTERN } from '@otog/schemas/api/auth';
import type { Role } from '@otog/schemas/api/contract';
import { userContract } from '@otog/schemas/api/user';
import { Button } from '../../components/ui/Button.tsx';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { SelectField, TextField } from '../../components/ui/Field.tsx';
import { ApiError, callApi, errorMessage } from '../../lib/api.ts';
import { useSession } from '../../lib/session.tsx';
import { toast } from '../../lib/toast.tsx';
import { invalidatePaths } from '../../lib/query.ts';
import type { AdminUser } from './types.ts';

type Fields = 'username' | 'showName' | 'role' | 'password';
interface Values {
  username: string;
  showName: string;
  role: Role;
  password: string;
}

const NAME_MAX = 255;

function validate(values: Values): Partial<Record<Fields, string>> {
  const errors: Partial<Record<Fields, string>> = {};
  const username = values.username.trim();
  if (!username) errors.username = 'กรุณากรอกชื่อผู้ใช้';
  else if (username.length > NAME_MAX) errors.username = `ชื่อผู้ใช้ยาวได้ไม่เกิน ${NAME_MAX} ตัวอักษร`;
  else if (!USERNAME_PATTERN.test(username)) errors.username = 'ชื่อผู้ใช้ใช้ได้เฉพาะตัวอักษรภาษาอังกฤษ ตัวเลข และ _ . -';
  const showName = values.showName.trim();
  if (!showName) errors.showName = 'กรุณากรอกชื่อที่แสดง';
  else if (showName.length > NAME_MAX) errors.showName = `ชื่อที่แสดงยาวได้ไม่เกิน ${NAME_MAX} ตัวอักษร`;
  else if (!ShowNameSchema.safeParse(showName).success) errors.showName = 'ชื่อที่แสดงมีอักขระที่ใช้ไม่ได้ (เช่น การขึ้นบรรทัดใหม่)';
  if (values.password && values.password.length < PASSWORD_MIN_LENGTH) errors.password = `รหัสผ่านต้องยาวอย่างน้อย ${PASSWORD_MIN_LENGTH} ตัวอักษร`;
  else if (values.password.length > PASSWORD_MAX_LENGTH) errors.password = `รหัสผ่านยาวได้ไม่เกิน ${PASSWORD_MAX_LENGTH} ตัวอักษร`;
  return errors;
}

/** 409 "username was taken." / "showName was taken." → the field it is about. */
function conflictField(message: string): Fields {
  return message.startsWith('showName') ? 'showName' : 'username';
}

export function UserEditDialog({ user, onClose }: { user: AdminUser; onClose(): void }) {
  const formId = useId();
  const queryClient = useQueryClient();
  const session = useSession();
  const [values, setValues] = useState<Values>({ username: user.username, showName: user.showName, role: user.role, password: '' });
  const [errors, setErrors] = useState<Partial<Record<Fields, string>>>({});
  const [pending, setPending] = useState(false);
  const isSelf = session.user?.id === user.id;

  const field = <K extends Fields>(name: K) => ({
    name,
    value: values[name],
    error: errors[name],
    disabled: pending,
    onChange: (event: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
      const value = event.target.value;
      setValues((current) => ({ ...current, [name]: value }));
      setErrors(({ [name]: _removed, ...rest }) => rest);
    },
  });

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const found = validate(values);
    flushSync(() => setErrors(found));
    if (Object.keys(found).length) {
      document.querySelector<HTMLElement>(`#${CSS.escape(formId)} .field-invalid :is(input, select, textarea, button)`)?.focus();
      return;
    }
    const details = { username: values.username.trim(), showName: values.showName.trim(), role: values.role };
    const detailsChanged = details.username !== user.username || details.showName !== user.showName || details.role !== user.role;
    const params = { userId: user.id };
    setPending(true);
    const save = async () => {
      if (detailsChanged || !values.password) await callApi(userContract.update, { params, body: { ...details, password: '' } });
      if (values.password) await callApi(userContract.update, { params, body: { ...details, password: values.password } });
    };
    try {
      await toast.promise(save(), {
        loading: 'กำลังบันทึกผู้ใช้...',
        success: values.password ? `บันทึกแล้ว (เปลี่ยนรหัสผ่านของ ${details.username} แล้ว)` : 'บันทึกผู้ใช้แล้ว',
        error: (error) => (error instanceof ApiError && error.status === 409 ? 'บันทึกไม่สำเร็จ: ชื่อซ้ำกับผู้ใช้อื่น' : errorMessage(error, 'บันทึกผู้ใช้ไม่สำเร็จ')),
      });
      void invalidatePaths(queryClient, '/user');
      onClose();
    } catch (error) {
      setPending(false);
      // The details may have been saved before the password failed: show the table as it is now.
      void invalidatePaths(queryClient, '/user');
      if (error instanceof ApiError && error.status === 409) {
        const which = conflictField(error.message);
        setErrors({ [which]: which === 'showName' ? 'ชื่อที่แสดงนี้มีผู้ใช้แล้ว' : 'ชื่อผู้ใช้นี้มีผู้ใช้แล้ว' });
      } else if (error instanceof ApiError && error.status === 400) {
        const message = error.message;
        const which: Fields = message.startsWith('showName') ? 'showName' : message.startsWith('password') ? 'password' : message.startsWith('role') ? 'role' : 'username';
        setErrors({ [which]: `เซิร์ฟเวอร์ไม่รับข้อมูลนี้: ${message}` });
      }
    }
  };

  return (
    <Dialog
      open
      size="md"
      title={`แก้ไขผู้ใช้ #${user.id}`}
      onClose={() => {
        if (!pending) onClose();
      }}
      footer={
        <>
          <Button variant="ghost" onClick={onClose} disabled={pending}>
            ยกเลิก
          </Button>
          <Button type="submit" form={formId} variant="primary" loading={pending}>
            บันทึก
          </Button>
        </>
      }
    >
      <form id={formId} className="form" noValidate onSubmit={(event) => void onSubmit(event)}>
        <TextField label="ชื่อผู้ใช้" autoComplete="off" hint="ตัวอักษรภาษาอังกฤษ ตัวเลข และ _ . -" {...field('username')} data-autofocus />
        <TextField label="ชื่อที่แสดง" autoComplete="off" {...field('showName')} />
        <SelectField
          label="สิทธิ์"
          hint={isSelf ? 'นี่คือบัญชีของคุณเอง ถ้าเปลี่ยนเป็นผู้ใช้ทั่วไป คุณจะเข้าระบบจัดการไม่ได้อีก' : undefined}
          {...field('role')}
        >
          <option value="user">ผู้ใช้</option>
          <option value="admin">ผู้ดูแลระบบ</option>
        </SelectField>
        <TextField
          label="รหัสผ่าน (ไม่บังคับ)"
          type="password"
          autoComplete="new-password"
          hint={`เว้นว่างไว้ถ้าไม่ต้องการเปลี่ยน ถ้ากรอก ต้องยาวอย่างน้อย ${PASSWORD_MIN_LENGTH} ตัวอักษร`}
          {...field('password')}
        />
      </form>
    </Dialog>
  );
}
