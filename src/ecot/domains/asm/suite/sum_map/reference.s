# Callee-saved registers across the calls; three pushes plus the return address keep the stack aligned at each call.
	.text
	.globl	sum_map
	.type	sum_map, @function
sum_map:
	pushq	%r12
	pushq	%rbp
	pushq	%rbx
	xorl	%ebp, %ebp
	testq	%rsi, %rsi
	jle	.Ldone
	movq	%rdi, %rbx
	leaq	(%rdi,%rsi,8), %r12
	pushq	%rdx
	subq	$8, %rsp
.Lloop:
	movq	(%rbx), %rdi
	call	*8(%rsp)
	addq	%rax, %rbp
	addq	$8, %rbx
	cmpq	%r12, %rbx
	jne	.Lloop
	addq	$16, %rsp
.Ldone:
	movq	%rbp, %rax
	popq	%rbx
	popq	%rbp
	popq	%r12
	ret
	.size	sum_map, .-sum_map
	.section	.note.GNU-stack,"",@progbits
