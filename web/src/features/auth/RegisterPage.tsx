import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USERNAME_PATTERN } from '@otog/schemas/api/auth';
import { TextField } from '../../components/ui/Field.tsx';
import { ApiError, callApi, errorMessage } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { useSession } from '../../lib/session.tsx';
import { toast } from '../../lib/toast.tsx';
import { authContract } from '@otog/schemas/api/auth';
import { AuthCard } from './AuthCard.tsx';

type Fields = 'username' | 'password' | 'showName';

/** The server's rules (schemas/api/auth), said in Thai at the field before anything is sent. */
function validate(values: Record<Fields, string>): Partial<Record<Fields, string>> {
  const errors: Partial<Record<Fields, string>> = {};
  if (!values.username) errors.username = 'กรุณากรอกชื่อผู้ใช้';
  else if (values.username.length > 255) errors.username = 'ชื่อผู้ใช้ยาวได้ไม่เกิน 255 ตัวอักษร';
  else if (!USERNAME_PATTERN.test(values.username)) errors.username = 'ชื่อผู้ใช้ใช้ได้เฉพาะตัวอักษรภาษาอังกฤษ ตัวเลข และ _ . -';
  if (!values.password) errors.password = 'กรุณากรอกรหัสผ่าน';
  else if (values.password.length < PASSWORD_MIN_LENGTH) errors.password = `รหัสผ่านต้องยาวอย่างน้อย ${PASSWORD_MIN_LENGTH} ตัวอักษร`;
  else if (values.password.length > PASSWORD_MAX_LENGTH) errors.password = `รหัสผ่านยาวได้ไม่เกิน ${PASSWORD_MAX_LENGTH} ตัวอักษร`;
  if (!values.showName) errors.showName = 'กรุณากรอกชื่อที่ใช้แสดง';
  else if (values.showName.length > 255) errors.showName = 'ชื่อที่ใช้แสดงยาวได้ไม่เกิน 255 ตัวอักษร';
  return errors;
}

export default function RegisterPage() {
  usePageTitle('ลงทะเบียน');
  const navigate = useNavigate();
  const { login } = useSession();
  const [errors, setErrors] = useState<Partial<Record<Fields, string>>>({});
  const [pending, setPending] = useState(false);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = {
      username: String(form.get('username') ?? '').trim(),
      password: String(form.get('password') ?? ''),
      showName: String(form.get('showName') ?? '').trim(),
    };
    const found = validate(values);
    setErrors(found);
    if (Object.keys(found).length) return;
    setPending(true);
    try {
      await toast.promise(callApi(authContract.register, { body: values }), {
        loading: 'กำลังลงทะเบียน...',
        success: 'ลงทะเบียนสำเร็จ!',
        error: (error) => (error instanceof ApiError && error.status === 409 ? 'ลงทะเบียนไม่สำเร็จ' : errorMessage(error, 'ลงทะเบียนไม่สำเร็จ')),
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        setErrors(error.message.startsWith('showName') ? { showName: 'ชื่อที่ใช้แสดงนี้มีผู้ใช้แล้ว' } : { username: 'ชื่อผู้ใช้นี้มีผู้ใช้แล้ว' });
      }
      setPending(false);
      return;
    }
    // A new account starts signed in; should that sign-in fail (rate limit), the account exists and the
    // sign-in page is the way on.
    try {
      await login(values.username, values.password);
      void navigate('/');
    } catch (error) {
      toast.error(errorMessage(error, 'ลงชื่อเข้าใช้ไม่สำเร็จ กรุณาเข้าสู่ระบบอีกครั้ง'));
      void navigate('/login');
    } finally {
      setPending(false);
    }
  };

  return (
    <AuthCard
      title="ลงทะเบียน"
      pending={pending}
      onSubmit={onSubmit}
      footer={
        <>
          มีบัญชีแล้ว? <Link to="/login">เข้าสู่ระบบ</Link>
        </>
      }
    >
      <TextField label="ชื่อผู้ใช้" name="username" autoComplete="username" error={errors.username} hint="ตัวอักษรภาษาอังกฤษ ตัวเลข และ _ . -" autoFocus />
      <TextField label="รหัสผ่าน" name="password" type="password" autoComplete="new-password" error={errors.password} hint={`อย่างน้อย ${PASSWORD_MIN_LENGTH} ตัวอักษร`} />
      <TextField label="ชื่อที่ใช้แสดง" name="showName" autoComplete="nickname" error={errors.showName} />
    </AuthCard>
  );
}
