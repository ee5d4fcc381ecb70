# Two Fibonacci steps per iteration with no register shuffling.
	.text
	.globl	fib
	.type	fib, @function
fib:
	xorl	%eax, %eax
	movl	$1, %edx
	movl	%edi, %ecx
	shrl	%ecx
	je	.Lodd
.Lpair:
	addq	%rdx, %rax
	addq	%rax, %rdx
	subl	$1, %ecx
	jne	.Lpair
.Lodd:
	testb	$1, %dil
	je	.Ldone
	movq	%rdx, %rax
.Ldone:
	ret
	.size	fib, .-fib
	.section	.note.GNU-stack,"",@progbits
