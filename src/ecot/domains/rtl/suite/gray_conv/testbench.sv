module tb;
    reg  [7:0] bin_in, gray_in;
    wire [7:0] gray_out, bin_out;
    reg  [7:0] exp_gray, exp_bin;
    integer errors, samples, i, k, seed;

    gray_conv dut (.bin_in(bin_in), .gray_out(gray_out), .gray_in(gray_in), .bin_out(bin_out));

    initial begin
        errors = 0; samples = 0; seed = 42;
        for (i = 0; i < 512; i = i + 1) begin
            bin_in = (i < 256) ? i : $random(seed);
            gray_in = (i < 256) ? (255 - i) : $random(seed);
            #1;
            exp_gray = 8'h00;
            for (k = 0; k < 8; k = k + 1)
                exp_gray[k] = bin_in[k] ^ ((k == 7) ? 1'b0 : bin_in[k + 1]);
            exp_bin[7] = gray_in[7];
            for (k = 6; k >= 0; k = k - 1)
                exp_bin[k] = exp_bin[k + 1] ^ gray_in[k];
            samples = samples + 1;
            if (gray_out !== exp_gray) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=gray_out expected=%h got=%h bin_in=%h", $time, exp_gray, gray_out, bin_in);
            end
            if (bin_out !== exp_bin) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=bin_out expected=%h got=%h gray_in=%h", $time, exp_bin, bin_out, gray_in);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
