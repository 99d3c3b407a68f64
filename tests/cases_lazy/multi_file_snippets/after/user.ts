export interface User {
  id: number;
  name: string;
  admin: boolean;
}

export function greet(user: User): string {
  return `Hello, ${user.name}`;
}
