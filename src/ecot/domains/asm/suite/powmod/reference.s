# Square-and-multiply: log2(e) steps instead of e.
	.text
	.globl	powmod
	.type	powmod, @function
powmod:
	movq	%rdx, %rcx
	movq	%rdi, %rax
	xorl	%edx, %edx
	divq	%rcx
	movq	%rdx, %r8
	movl	$1, %eax
	xorl	%edx, %edx
	divq	%rcx
	movq	%rdx, %r9
	testq	%rsi, %rsi
	je	.Ldone
.Lloop:
	testb	$1, %sil
	je	.Lsquare
	movq	%r9, %rax
	mulq	%r8
	divq	%rcx
	movq	%rdx, %r9
.Lsquare:
	shrq	%rsi
	je	.Ldone
	movq	%r8, %rax
	mulq	%r8
	divq	%rcx
	movq	%rdx, %r8
	jmp	.Lloop
.Ldone:
	movq	%r9, %rax
	ret
	.size	powmod, .-powmod
	.section	.note.GNU-stack,"",@progbits
