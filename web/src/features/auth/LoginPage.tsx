import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { TextField } from '../../components/ui/Field.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { config } from '../../lib/config.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { useSession } from '../../lib/session.tsx';
import { toast } from '../../lib/toast.tsx';
import { AuthCard } from './AuthCard.tsx';

/** Where a signed-in user belongs: the problems, or the contests on an offline (on-site) contest. */
const homeOf = () => (config.offline ? '/contest' : '/problem');

export default function LoginPage() {
  usePageTitle('เข้าสู่ระบบ');
  const { isAuthenticated, login } = useSession();
  const navigate = useNavigate();
  const [errors, setErrors] = useState<{ username?: string; password?: string }>({});
  const [pending, setPending] = useState(false);
  if (isAuthenticated && !pending) return <Navigate to={homeOf()} replace />;

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const username = String(form.get('username') ?? '').trim();
    const password = String(form.get('password') ?? '');
    const found = { ...(username ? {} : { username: 'กรุณากรอกชื่อผู้ใช้' }), ...(password ? {} : { password: 'กรุณากรอกรหัสผ่าน' }) };
    setErrors(found);
    if (Object.keys(found).length) return;
    setPending(true);
    try {
      await toast.promise(login(username, password), {
        loading: 'กำลังลงชื่อเข้าใช้...',
        success: 'ลงชื่อเข้าใช้สำเร็จ !',
        error: (error) =>
          error instanceof ApiError && error.status === 401 ? 'ชื่อผู้ใช้ หรือ รหัสผ่าน ไม่ถูกต้อง' : error instanceof ApiError && error.status === 429 ? errorMessage(error) : 'ลงชื่อใช้งานไม่สำเร็จ',
      });
      void navigate(homeOf(), { replace: true });
    } catch {
      // The toast said why.
    } finally {
      setPending(false);
    }
  };

  return (
    <AuthCard
      title="เข้าสู่ระบบ"
      pending={pending}
      onSubmit={onSubmit}
      footer={
        config.offline ? null : (
          <>
            ยังไม่มีบัญชี? <Link to="/register">ลงทะเบียน</Link>
          </>
        )
      }
    >
      <TextField label="ชื่อผู้ใช้" name="username" autoComplete="username" error={errors.username} autoFocus />
      <TextField label="รหัสผ่าน" name="password" type="password" autoComplete="current-password" error={errors.password} />
    </AuthCard>
  );
}
