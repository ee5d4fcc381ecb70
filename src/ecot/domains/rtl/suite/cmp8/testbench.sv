module tb;
    reg  [7:0] a, b;
    reg        is_signed;
    wire       lt, eq, gt;
    reg        exp_lt, exp_eq, exp_gt;
    integer errors, samples, i, seed, sa, sb;

    cmp8 dut (.a(a), .b(b), .is_signed(is_signed), .lt(lt), .eq(eq), .gt(gt));

    initial begin
        errors = 0; samples = 0; seed = 7;
        for (i = 0; i < 1200; i = i + 1) begin
            a = $random(seed); b = $random(seed); is_signed = $random(seed);
            if (i % 9 == 0) b = a;
            if (i % 13 == 1) begin a = 8'h80; b = 8'h7F; end
            if (i % 13 == 2) begin a = 8'hFF; b = 8'h00; end
            #1;
            sa = is_signed ? (a[7] ? a - 256 : a) : a;
            sb = is_signed ? (b[7] ? b - 256 : b) : b;
            exp_lt = sa < sb; exp_eq = sa == sb; exp_gt = sa > sb;
            samples = samples + 1;
            if ({lt, eq, gt} !== {exp_lt, exp_eq, exp_gt}) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal={lt,eq,gt} expected=%h got=%h a=%h b=%h is_signed=%b",
                             $time, {exp_lt, exp_eq, exp_gt}, {lt, eq, gt}, a, b, is_signed);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
